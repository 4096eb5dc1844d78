extension WebPage {
    /// Pictures: an `<img>` cannot send the token header, so the bytes are fetched from
    /// `GET /api/v1/picture/ID` with it and shown through a `blob:` URL (the CSP allows
    /// `img-src blob:`). A picture not here yet (404: its blocks are still being fetched) is
    /// asked again at most 6 times, 1 s apart and then longer. Blob URLs are revoked when
    /// their element leaves the page.
    static let picturesScript = #"""
        "use strict";
        (function (S) {
          const urls = new Map();  // element -> blob URL
          const tries = 6;

          async function fill(img, id, left, wait) {
            if (!img.isConnected && left < tries) return;
            let res;
            try { res = await S.getBytes("picture/" + encodeURIComponent(id)); } catch (e) { res = null; }
            if (res && res.ok) {
              const blob = await res.blob();
              const url = URL.createObjectURL(blob);
              urls.set(img, url);
              img.src = url;
              img.closest("figure").classList.remove("pending");
              img.closest("figure").querySelector("figcaption").hidden = true;
              return;
            }
            if (left <= 1 || (res && res.status !== 404)) {
              img.closest("figure").querySelector("figcaption").textContent = "picture not available";
              return;
            }
            setTimeout(() => fill(img, id, left - 1, Math.min(wait * 2, 8000)), wait);
          }

          S.pictures = {
            maxUpload: 8 * 1024 * 1024,
            /// A figure that shows the picture of post `id` once its bytes are here.
            thumb(id, title, cls) {
              const figure = S.el("figure", null, cls + " pending");
              const img = S.el("img");
              img.alt = "picture: " + title;
              img.dataset.picture = id;
              figure.append(img, S.el("figcaption", "picture loading…", "meta"));
              setTimeout(() => fill(img, id, tries, 1000), 0);
              return figure;
            },
            /// Revokes the blob URLs of the pictures inside `root` (about to be replaced).
            forget(root) {
              for (const img of root.querySelectorAll("img[data-picture]")) {
                const url = urls.get(img);
                if (url) { URL.revokeObjectURL(url); urls.delete(img); }
              }
            },
          };
        })(window.Skwad);
        """#
}
