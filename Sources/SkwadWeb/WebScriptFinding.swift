extension WebPage {
    /// Inbox and search, and the packs screen's invitations: an invite-only pack made here, a
    /// join code joined, and a pack's code (`invite`: the join code of an invite-only pack, else
    /// this node's contact code) shown with its QR code, drawn as SVG elements from the modules
    /// `POST /api/v1/qr` gives.
    static let findingScript = #"""
        "use strict";
        (function (S) {
          const { $, el } = S;
          const svgNS = "http://www.w3.org/2000/svg";

          /// The QR code of `text` as an SVG: dark modules on white, a quiet zone of 4.
          async function qrCode(text, label) {
            const q = await S.apiPath("qr", { text });
            const n = q.size + 8;
            const svg = document.createElementNS(svgNS, "svg");
            svg.setAttribute("viewBox", "0 0 " + n + " " + n);
            svg.setAttribute("class", "qr");
            svg.setAttribute("role", "img");
            svg.setAttribute("aria-label", label);
            svg.setAttribute("shape-rendering", "crispEdges");
            const bg = document.createElementNS(svgNS, "rect");
            bg.setAttribute("width", n); bg.setAttribute("height", n); bg.setAttribute("fill", "#fff");
            svg.append(bg);
            let d = "";
            q.rows.forEach((row, y) => {
              for (let x = 0; x < row.length; x++) if (row[x] === "1") d += "M" + (x + 4) + " " + (y + 4) + "h1v1h-1z";
            });
            const path = document.createElementNS(svgNS, "path");
            path.setAttribute("d", d); path.setAttribute("fill", "#000");
            svg.append(path);
            return svg;
          }

          /// Shows the code of pack `id` under its list item, with the QR code.
          async function showInvite(li, id, name) {
            await S.guarded(async () => {
              const r = await S.api("invite", { pack: id });
              const box = el("div", null, "invite");
              const secret = r.code.startsWith("skw-");
              box.append(el("p", secret ? "Join code (whoever has it can read the pack: give it privately):"
                : "Contact code (whoever has it can connect to this node and join the pack):", "meta"));
              box.append(el("p", r.code, "code"));
              box.append(await qrCode(r.code, (secret ? "QR code of the join code of " : "QR code of the contact code for ") + name));
              const old = li.querySelector(".invite");
              if (old) old.replaceWith(box); else li.append(box);
            });
          }

          function itemText(i) {
            const where = i.packName ? " in " + i.packName : "";
            switch (i.kind) {
              case "reply": return "reply" + where + " by " + i.comment.author + ": " + i.comment.body;
              case "votes": return "votes on “" + (i.about || "") + "”" + where + ": +" + i.up + " −" + i.down + ", score " + i.score;
              case "autoHidden": return "“" + (i.about || "") + "” was hidden by votes (score " + i.score + ")";
              case "hidden": return "“" + (i.about || "") + "” was hidden by a moderator" + (i.reason ? ": " + i.reason : "");
              case "restored": return "“" + (i.about || "") + "” was restored by a moderator";
              case "message": return "message from " + i.message.peer + where + ": " + i.message.text;
              case "followed_post": return "new post by " + i.post.author + ", whom you follow: " + i.post.title;
              case "picked": return "your caption was picked" + where;
              case "review": return i.author + " reviewed your place" + where + ": " + i.overall + "/5 " + (i.text || "");
              case "review_reply": return "the landlord replied to your review" + where + ": " + (i.text || "");
              default: return i.kind + where + (i.about ? ": " + i.about : "");
            }
          }

          async function loadInbox() {
            await S.guarded(async () => {
              const r = await S.api("inbox", {});
              const items = r.items.slice().reverse();
              $("inbox-list").replaceChildren(...items.map((i) => {
                const li = el("li");
                li.append(el("p", itemText(i), "body"));
                if (i.time) li.append(el("p", S.ago(i.time), "meta"));
                return li;
              }));
              if (!items.length) $("inbox-list").append(el("li", "Nothing new since you last looked.", "meta"));
            });
          }

          async function search(ev) {
            ev.preventDefault();
            await S.guarded(async () => {
              const r = await S.api("search", { text: $("search-text").value, limit: 50 });
              $("search-list").replaceChildren(...r.results.map((x) => {
                const li = el("li");
                li.dataset.id = x.post.id;
                li.append(S.button(x.post.title, null, () => S.openPost(x.post.id), "linkish title"));
                li.append(el("p", [x.post.packLabel || x.post.packName, x.post.author, S.ago(x.post.time)].join(" · "), "meta"));
                if (x.comment) li.append(el("p", "↳ " + x.comment.body, "body"));
                return li;
              }));
              if (!r.results.length) $("search-list").append(el("li", "Nothing found.", "meta"));
            });
          }

          /// The Den: your packs (as Alpha), your posts and comments, upvotes received, the
          /// places you added and your reviews (`den`).
          async function loadDen() {
            await S.guarded(async () => {
              const d = await S.api("den", {});
              $("den-summary").textContent = d.posts.length + " posts · " + d.comments.length + " comments · "
                + d.totalUpvotes + " upvotes received · " + d.joined.length + " packs joined · "
                + d.places.length + " places added · " + d.reviews.length + " reviews";
              $("den-packs").replaceChildren(...d.packs.map((p) => el("li", (p.label || p.name) + " · " + p.posts + " posts")));
              if (!d.packs.length) $("den-packs").append(el("li", "None yet.", "meta"));
              $("den-posts").replaceChildren(...d.posts.map((p) => {
                const li = el("li");
                li.dataset.id = p.id;
                li.append(S.button(p.title, null, () => S.openPost(p.id), "linkish title"),
                  el("p", [p.packLabel || p.packName, S.ago(p.time), "score " + p.score, p.comments + " comments"].join(" · "), "meta"));
                return li;
              }));
              if (!d.posts.length) $("den-posts").append(el("li", "None yet.", "meta"));
              $("den-comments").replaceChildren(...d.comments.map((c) => {
                const li = el("li");
                li.append(S.button(c.removed ? "(removed)" : c.body, "open the post of this comment", () => S.openPost(c.post), "linkish"),
                  el("p", S.ago(c.time) + " · score " + c.score, "meta"));
                return li;
              }));
              if (!d.comments.length) $("den-comments").append(el("li", "None yet.", "meta"));
              $("den-places").replaceChildren(...d.places.map((p) => S.places.item(p)));
              if (!d.places.length) $("den-places").append(el("li", "None yet.", "meta"));
              // A review names its place by id: the address when the place is one of yours.
              const added = new Map(d.places.map((p) => [p.id, p.address]));
              $("den-reviews").replaceChildren(...d.reviews.map((v) => {
                const li = el("li");
                li.dataset.id = v.id;
                const on = added.get(v.place) || "place " + v.place.slice(0, 8);
                const open = () => S.places.open(v.place);
                li.append(S.button(v.overall + "/5 on " + on, "open the place of this review", open, "linkish title"),
                  el("p", [S.ago(v.time), v.hidden ? "hidden" : null, v.reply ? "the landlord replied" : null]
                    .filter((x) => x).join(" · "), "meta"));
                if (!v.hidden && v.text) li.append(el("p", v.text, "body"));
                return li;
              }));
              if (!d.reviews.length) $("den-reviews").append(el("li", "None yet.", "meta"));
            });
          }

          S.screens.den = { load: loadDen };
          S.screens.inbox = { load: loadInbox };
          S.screens.search = {
            load: () => Promise.resolve(),
            init() { $("search-form").addEventListener("submit", search); },
          };
          // The packs screen's forms (no screen of its own: `init` only).
          S.screens.invites = {
            init() {
              $("private-form").addEventListener("submit", (ev) => {
                ev.preventDefault();
                S.guarded(async () => {
                  const args = { name: $("private-name").value };
                  if ($("private-radius").value) args.radius = Number($("private-radius").value);
                  await S.api("create-private", args);
                  $("private-form").reset();
                  await S.screens.packs.load();
                });
              });
              $("code-form").addEventListener("submit", (ev) => {
                ev.preventDefault();
                S.guarded(async () => {
                  await S.api("join", { pack: $("join-code").value.trim() });
                  $("code-form").reset();
                  await S.screens.packs.load();
                });
              });
            },
          };
          S.invite = showInvite;
        })(window.Skwad);
        """#
}
