extension WebPage {
    /// The page's scripts, served at `/js/NAME.js` in this order (`/app.js` is the core, each
    /// other one a screen or a family of screens). Every string from the node goes in with
    /// `textContent` (never as HTML); the token is read from the URL's `#` and kept in memory.
    static let scripts: [(name: String, text: String)] = [
        ("feed", feedScript), ("pictures", picturesScript), ("places", placesScript), ("messages", messagesScript),
        ("finding", findingScript), ("moderation", moderationScript)
    ]

    /// The core: the `Skwad` namespace the screens share (API calls, element helpers, screen
    /// switching, the live events socket). Screens register `Skwad.screens[NAME] = {init, load}`.
    static let script = #"""
        "use strict";
        window.Skwad = (function () {
          const S = {};
          S.token = new URLSearchParams(location.hash.slice(1)).get("token") || "";
          S.state = { screen: "feed" };
          S.screens = {};
          const listeners = [];
          S.$ = (id) => document.getElementById(id);

          /// An element with `text` as its text (never parsed as HTML).
          S.el = function (tag, text, cls) {
            const e = document.createElement(tag);
            if (text !== undefined && text !== null) e.textContent = String(text);
            if (cls) e.className = cls;
            return e;
          };

          S.button = function (text, label, onClick, cls) {
            const b = S.el("button", text, cls); b.type = "button";
            if (label) b.setAttribute("aria-label", label);
            b.addEventListener("click", onClick);
            return b;
          };

          S.showError = function (message) {
            const box = S.$("error");
            box.textContent = message || "";
            box.hidden = !message;
          };

          /// Runs `fn`, showing what it throws in the error line.
          S.guarded = async function (fn) {
            try { S.showError(""); return await fn(); } catch (e) { S.showError(e.message); return undefined; }
          };

          function headers(extra) {
            return Object.assign({ "Authorization": "Bearer " + S.token }, extra || {});
          }

          async function reply(res) {
            let r;
            try { r = await res.json(); } catch (e) { r = { ok: false, error: "HTTP " + res.status }; }
            if (!r.ok) throw new Error(r.error || "HTTP " + res.status);
            return r;
          }

          /// `POST /api/v1/VERB`: the REPL's command with JSON arguments; its JSON reply.
          S.api = async function (verb, args) {
            return reply(await fetch("/api/v1/" + encodeURIComponent(verb), {
              method: "POST", headers: headers({ "Content-Type": "application/json" }),
              body: JSON.stringify(args || {}), credentials: "omit", cache: "no-store",
            }));
          };

          /// `POST /api/v1/PATH` with a JSON body, for the page's own routes (`swipe-key`).
          S.apiPath = async function (path, args) {
            return reply(await fetch("/api/v1/" + path, {
              method: "POST", headers: headers({ "Content-Type": "application/json" }),
              body: JSON.stringify(args || {}), credentials: "omit", cache: "no-store",
            }));
          };

          /// `post` or `ask` with a picture file: the file is the body, the other arguments a
          /// JSON object in the `args` query parameter.
          S.upload = async function (verb, args, file) {
            return reply(await fetch("/api/v1/upload/" + verb + "?args=" + encodeURIComponent(JSON.stringify(args || {})), {
              method: "POST", headers: headers({ "Content-Type": "application/octet-stream" }),
              body: file, credentials: "omit", cache: "no-store",
            }));
          };

          /// A GET under `/api/v1/` with the token header: the response (an `<img>` cannot send it).
          S.getBytes = function (path) {
            return fetch("/api/v1/" + path, { headers: headers(), credentials: "omit", cache: "no-store" });
          };

          S.ago = function (ms) {
            const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
            if (s < 60) return s + " s ago";
            if (s < 3600) return Math.round(s / 60) + " min ago";
            return Math.round(s / 3600) + " h ago";
          };

          /// Shows one screen (its section `screen-NAME`), marks its nav button, focuses its heading.
          S.show = function (screen) {
            S.state.screen = screen;
            for (const s of document.querySelectorAll("main > section")) s.hidden = s.id !== "screen-" + screen;
            for (const b of document.querySelectorAll("nav button")) {
              if (b.dataset.screen === screen) b.setAttribute("aria-current", "page"); else b.removeAttribute("aria-current");
            }
            const heading = document.querySelector("#screen-" + screen + " h2");
            if (heading) { heading.tabIndex = -1; heading.focus(); }
          };

          /// Shows a screen and loads what it lists.
          S.go = function (screen) {
            S.show(screen);
            const s = S.screens[screen];
            if (s && s.load) return s.load();
            return Promise.resolve();
          };

          /// `fn(event)` for every live line from the node.
          S.onEvent = function (fn) { listeners.push(fn); };

          let retries = 0;
          function connect() {
            const ws = new WebSocket("ws://" + location.host + "/api/v1/events", ["skwad", "skwad.token." + S.token]);
            ws.addEventListener("open", () => { retries = 0; S.$("live").textContent = "live"; });
            ws.addEventListener("message", (m) => {
              let e;
              try { e = JSON.parse(m.data); } catch (err) { return; }
              for (const fn of listeners) { try { fn(e); } catch (err) { /* one screen's fault stays its own */ } }
            });
            ws.addEventListener("close", () => {
              S.$("live").textContent = "offline: reconnecting…";
              retries = Math.min(retries + 1, 6);
              setTimeout(connect, 500 * Math.pow(2, retries));
            });
          }

          document.addEventListener("DOMContentLoaded", () => {
            if (!S.token) { S.showError("Open the address the node printed (it ends in #token=…)."); return; }
            for (const b of document.querySelectorAll("nav button")) b.addEventListener("click", () => S.go(b.dataset.screen));
            for (const name of Object.keys(S.screens)) if (S.screens[name].init) S.screens[name].init();
            S.screens.packs.load().then(() => S.screens.feed.load());
            connect();
          });
          return S;
        })();
        """#
}
