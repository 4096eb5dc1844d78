extension WebPage {
    /// The page's script. Every string from the node goes in with `textContent` (never as
    /// HTML); the token is read from the URL's `#` and kept in memory only.
    static let script = #"""
        "use strict";
        (function () {
          const token = new URLSearchParams(location.hash.slice(1)).get("token") || "";
          const state = { screen: "feed", post: null, packs: [] };
          const $ = (id) => document.getElementById(id);

          function el(tag, text, cls) {
            const e = document.createElement(tag);
            if (text !== undefined && text !== null) e.textContent = String(text);
            if (cls) e.className = cls;
            return e;
          }

          function showError(message) {
            const box = $("error");
            box.textContent = message || "";
            box.hidden = !message;
          }

          async function api(verb, args) {
            const res = await fetch("/api/v1/" + encodeURIComponent(verb), {
              method: "POST",
              headers: { "Authorization": "Bearer " + token, "Content-Type": "application/json" },
              body: JSON.stringify(args || {}),
              credentials: "omit",
              cache: "no-store",
            });
            let reply;
            try { reply = await res.json(); } catch (e) { reply = { ok: false, error: "HTTP " + res.status }; }
            if (!reply.ok) throw new Error(reply.error || "HTTP " + res.status);
            return reply;
          }

          function ago(ms) {
            const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
            if (s < 60) return s + " s ago";
            if (s < 3600) return Math.round(s / 60) + " min ago";
            return Math.round(s / 3600) + " h ago";
          }

          function voteButtons(id, score) {
            const box = el("span", null, "row");
            const up = el("button", "▲"); up.type = "button"; up.setAttribute("aria-label", "upvote");
            const down = el("button", "▼"); down.type = "button"; down.setAttribute("aria-label", "downvote");
            const shown = el("span", score, "score"); shown.dataset.score = id;
            shown.setAttribute("aria-label", "score");
            up.addEventListener("click", () => vote("up", id));
            down.addEventListener("click", () => vote("down", id));
            box.append(up, shown, down);
            return box;
          }

          async function vote(verb, id) {
            try { showError(""); await api(verb, { target: id }); await refreshScores(id); } catch (e) { showError(e.message); }
          }

          async function refreshScores(id) {
            if (state.screen === "post" && state.post) { await openPost(state.post); } else { await loadFeed(); }
          }

          function postItem(p) {
            const li = el("li");
            li.dataset.id = p.id;
            const title = el("button", p.title, "linkish title"); title.type = "button";
            title.addEventListener("click", () => openPost(p.id));
            const meta = el("p", [p.packLabel || p.packName, p.author, ago(p.time), p.comments + " comments"].join(" · "), "meta");
            li.append(title, meta);
            if (p.body) li.append(el("p", p.body, "body"));
            li.append(voteButtons(p.id, p.score));
            return li;
          }

          async function loadFeed() {
            const args = { sort: $("feed-sort").value, limit: 50 };
            if ($("feed-pack").value) args.pack = $("feed-pack").value;
            try {
              showError("");
              const reply = await api("feed", args);
              const list = $("feed-list");
              list.replaceChildren(...reply.posts.map(postItem));
              if (!reply.posts.length) list.append(el("li", "No posts yet.", "meta"));
            } catch (e) { showError(e.message); }
          }

          async function loadPacks() {
            try {
              showError("");
              const reply = await api("packs", {});
              state.packs = reply.packs;
              const list = $("packs-list");
              list.replaceChildren(...reply.packs.map(packItem));
              if (!reply.packs.length) list.append(el("li", "No packs around you yet.", "meta"));
              fillPackSelects();
            } catch (e) { showError(e.message); }
          }

          function packItem(p) {
            const li = el("li");
            li.append(el("p", p.label || p.name, "title"));
            const facts = [p.posts + " posts", p.popularity + " people"];
            if (p.distance !== null && p.distance !== undefined) facts.push(Math.round(p.distance) + " m away");
            if (p.tags && p.tags.length) facts.push("#" + p.tags.join(" #"));
            li.append(el("p", facts.join(" · "), "meta"));
            const b = el("button", p.joined ? "Leave" : "Join"); b.type = "button";
            b.setAttribute("aria-label", (p.joined ? "Leave " : "Join ") + (p.label || p.name));
            b.addEventListener("click", async () => {
              try {
                showError("");
                await api(p.joined ? "leave" : "join", { pack: p.id });
                await loadPacks();
              } catch (e) { showError(e.message); }
            });
            li.append(b);
            return li;
          }

          function fillPackSelects() {
            const joined = state.packs.filter((p) => p.joined);
            for (const [id, first] of [["feed-pack", "all my packs"], ["compose-pack", null]]) {
              const select = $(id);
              const kept = select.value;
              const options = joined.map((p) => { const o = el("option", p.label || p.name); o.value = p.id; return o; });
              if (first) { const o = el("option", first); o.value = ""; options.unshift(o); }
              select.replaceChildren(...options);
              if ([...select.options].some((o) => o.value === kept)) select.value = kept;
            }
          }

          async function openPost(id) {
            try {
              showError("");
              const reply = await api("show", { post: id });
              const p = reply.post;
              state.post = p.id;
              $("post-title").textContent = p.title;
              $("post-meta").textContent = [p.packLabel || p.packName, p.author, ago(p.time)].join(" · ");
              $("post-body").textContent = p.body;
              $("post-votes").replaceChildren(voteButtons(p.id, p.score));
              $("comments").replaceChildren(...reply.comments.map(commentItem));
              show("post");
            } catch (e) { showError(e.message); }
          }

          function commentItem(c) {
            const li = el("li");
            li.dataset.id = c.id;
            li.style.marginLeft = Math.min(c.depth, 6) + "rem";
            li.append(el("p", c.author + " · " + ago(c.time), "meta"));
            li.append(el("p", c.removed ? "(removed)" : c.body, "body"));
            li.append(voteButtons(c.id, c.score));
            return li;
          }

          function show(screen) {
            state.screen = screen;
            for (const s of ["feed", "packs", "compose", "post"]) $("screen-" + s).hidden = s !== screen;
            for (const b of document.querySelectorAll("nav button")) {
              if (b.dataset.screen === screen) b.setAttribute("aria-current", "page"); else b.removeAttribute("aria-current");
            }
            const heading = document.querySelector("#screen-" + screen + " h2");
            if (heading) { heading.tabIndex = -1; heading.focus(); }
          }

          function onEvent(e) {
            if (e.event === "post" && state.screen === "feed") {
              const filter = $("feed-pack").value;
              if (filter && e.post.pack !== filter) return;
              if (document.querySelector('#feed-list li[data-id="' + CSS.escape(e.post.id) + '"]')) return;
              const li = postItem(e.post);
              li.classList.add("new");
              const list = $("feed-list");
              const empty = list.querySelector("li.meta");
              if (empty) empty.remove();
              list.prepend(li);
            } else if (e.event === "comment" && state.screen === "post" && e.comment.post === state.post) {
              const li = commentItem(e.comment);
              li.classList.add("new");
              $("comments").append(li);
            } else if (e.event === "vote") {
              for (const s of document.querySelectorAll('[data-score="' + CSS.escape(e.target) + '"]')) s.textContent = String(e.score);
            }
          }

          let retries = 0;
          function connect() {
            const ws = new WebSocket("ws://" + location.host + "/api/v1/events", ["skwad", "skwad.token." + token]);
            ws.addEventListener("open", () => { retries = 0; $("live").textContent = "live"; });
            ws.addEventListener("message", (m) => { try { onEvent(JSON.parse(m.data)); } catch (e) { /* not an event */ } });
            ws.addEventListener("close", () => {
              $("live").textContent = "offline: reconnecting…";
              retries = Math.min(retries + 1, 6);
              setTimeout(connect, 500 * Math.pow(2, retries));
            });
          }

          document.addEventListener("DOMContentLoaded", () => {
            if (!token) { showError("Open the address the node printed (it ends in #token=…)."); return; }
            for (const b of document.querySelectorAll("nav button")) {
              b.addEventListener("click", () => {
                show(b.dataset.screen);
                if (b.dataset.screen === "feed") loadFeed();
                if (b.dataset.screen === "packs") loadPacks();
              });
            }
            $("feed-form").addEventListener("submit", (ev) => { ev.preventDefault(); loadFeed(); });
            $("feed-pack").addEventListener("change", loadFeed);
            $("feed-sort").addEventListener("change", loadFeed);
            $("compose-form").addEventListener("submit", async (ev) => {
              ev.preventDefault();
              try {
                showError("");
                await api("post", { pack: $("compose-pack").value, title: $("compose-title-input").value, body: $("compose-body").value });
                $("compose-title-input").value = ""; $("compose-body").value = "";
                show("feed"); await loadFeed();
              } catch (e) { showError(e.message); }
            });
            $("comment-form").addEventListener("submit", async (ev) => {
              ev.preventDefault();
              try {
                showError("");
                await api("comment", { target: state.post, text: $("comment-text").value });
                $("comment-text").value = "";
                await openPost(state.post);
              } catch (e) { showError(e.message); }
            });
            loadPacks().then(loadFeed);
            connect();
          });
        })();
        """#
}
