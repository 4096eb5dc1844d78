extension WebPage {
    /// Feed, packs, the post form (a post or an ask, with a picture), a post with its comments
    /// or captions, votes, pick, and edit and delete of your own posts and comments.
    static let feedScript = #"""
        "use strict";
        (function (S) {
          const { $, el } = S;
          const st = { post: null, packs: [], mine: new Set() };

          /// Your posts and comments (from `den`): they get Edit and Delete; the packs you are the
          /// Alpha of get Hide (one `den` for both).
          async function loadMine() {
            const den = await S.api("den", {});
            st.mine = new Set(den.posts.map((p) => p.id).concat(den.comments.map((c) => c.id)));
            S.moderation.setAlpha(den);
          }

          function voteButtons(id, score) {
            const box = el("span", null, "row");
            const shown = el("span", score, "score"); shown.dataset.score = id;
            shown.setAttribute("aria-label", "score");
            box.append(S.button("▲", "upvote", () => vote("up", id)), shown, S.button("▼", "downvote", () => vote("down", id)));
            return box;
          }

          async function vote(verb, id) {
            await S.guarded(async () => {
              await S.api(verb, { target: id });
              if (S.state.screen === "post" && st.post) await openPost(st.post); else await loadFeed();
            });
          }

          function postItem(p) {
            const li = el("li");
            li.dataset.id = p.id;
            const title = S.button(p.title, null, () => openPost(p.id), "linkish title");
            const kind = p.ask ? "ask" : null;
            const count = p.comments + (p.ask ? " captions" : " comments");
            const meta = el("p", [kind, p.packLabel || p.packName, p.author, S.ago(p.time), count]
              .filter((x) => x).join(" · "), "meta");
            li.append(title, meta);
            if (p.picture) li.append(S.pictures.thumb(p.id, p.title, "thumb"));
            if (p.body) li.append(el("p", p.body, "body"));
            li.append(voteButtons(p.id, p.score));
            return li;
          }

          async function loadFeed() {
            const args = { sort: $("feed-sort").value, limit: 50 };
            if ($("feed-pack").value) args.pack = $("feed-pack").value;
            await S.guarded(async () => {
              const reply = await S.api("feed", args);
              const list = $("feed-list");
              S.pictures.forget(list);
              list.replaceChildren(...reply.posts.map(postItem));
              if (!reply.posts.length) list.append(el("li", "No posts yet.", "meta"));
              // The first feed shown, for `skwad bench web` (a mark in this page's own timeline).
              if (!performance.getEntriesByName("skwad-first-feed").length) performance.mark("skwad-first-feed");
            });
          }

          async function loadPacks() {
            await S.guarded(async () => {
              const reply = await S.api("packs", {});
              st.packs = reply.packs;
              const list = $("packs-list");
              list.replaceChildren(...reply.packs.map(packItem));
              if (!reply.packs.length) list.append(el("li", "No packs around you yet.", "meta"));
              fillPackSelects();
            });
          }

          function packItem(p) {
            const li = el("li");
            li.dataset.id = p.id;
            li.append(el("p", p.label || p.name, "title"));
            const facts = [p.posts + " posts", p.popularity + " people"];
            if (p.distance !== null && p.distance !== undefined) facts.push(Math.round(p.distance) + " m away");
            if (p.tags && p.tags.length) facts.push("#" + p.tags.join(" #"));
            li.append(el("p", facts.join(" · "), "meta"));
            const name = p.label || p.name;
            li.append(S.button(p.joined ? "Leave" : "Join", (p.joined ? "Leave " : "Join ") + name, () => S.guarded(async () => {
              await S.api(p.joined ? "leave" : "join", { pack: p.id });
              await loadPacks();
            })));
            if (p.joined) {
              li.append(S.button("Invite", "show the code and QR code to invite someone to " + name, () => S.invite(li, p.id, name)));
            }
            return li;
          }

          function fillPackSelects() {
            const joined = st.packs.filter((p) => p.joined);
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
            await S.guarded(async () => {
              const [reply] = await Promise.all([S.api("show", { post: id }), loadMine()]);
              const p = reply.post;
              st.post = p.id;
              st.pack = p.pack;
              st.ask = p.ask && st.mine.has(p.id) ? p : null;
              $("post-title").textContent = p.title;
              $("post-meta").textContent = [p.ask ? "ask" : null, p.packLabel || p.packName, p.author, S.ago(p.time),
                p.edited ? "edited" : null]
                .filter((x) => x).join(" · ");
              const picture = $("post-picture");
              S.pictures.forget(picture);
              picture.replaceChildren(...(p.picture ? [S.pictures.thumb(p.id, p.title, "picture")] : []));
              $("post-body").textContent = p.body;
              $("post-votes").replaceChildren(voteButtons(p.id, p.score));
              $("post-own").replaceChildren(st.mine.has(p.id) ? ownButtons(p.id, "post", p.title, p.body)
                : S.button("Message " + p.author, "send a private message to " + p.author, () => S.messages.open(p.id, p.author)),
                S.moderation.tools(p, p.pack, st.mine.has(p.id)));
              $("comments-title").textContent = p.ask ? "Captions" : "Comments";
              $("comment-label").textContent = p.ask ? "Your caption" : "Your comment";
              $("comments").replaceChildren(...reply.comments.map(commentItem));
              S.show("post");
            });
          }

          function commentItem(c) {
            const li = el("li");
            li.dataset.id = c.id;
            li.className = "depth-" + Math.min(c.depth, 6);
            li.append(el("p", [c.author, S.ago(c.time), c.edited ? "edited" : null, c.picked ? "★ picked" : null]
              .filter((x) => x).join(" · "), "meta"));
            li.append(el("p", c.removed ? "(removed)" : c.body, "body"));
            const row = voteButtons(c.id, c.score);
            if (st.ask && c.depth === 0 && !c.removed && !c.picked) {
              row.append(S.button("Pick", "pick this caption", () => S.guarded(async () => {
                await S.api("pick", { caption: c.id });
                await openPost(st.post);
              })));
            }
            li.append(row);
            if (st.mine.has(c.id) && !c.removed) li.append(ownButtons(c.id, "comment", null, c.body));
            if (!c.removed) li.append(S.moderation.tools(c, st.pack, st.mine.has(c.id)));
            return li;
          }

          /// Edit and Delete for your own post or comment: the REPL's `edit` and `delete`.
          function ownButtons(id, what, title, body) {
            const box = el("div", null, "row own");
            box.append(S.button("Edit", "edit your " + what, () => openEditor(box, id, title, body)));
            box.append(S.button("Delete", "delete your " + what, () => {
              // Asked in the page (a dialog would block the page and its tests).
              const really = S.button("Yes, delete", "yes, delete your " + what, () => S.guarded(async () => {
                await S.api("delete", { target: id });
                if (what === "post") await S.go("feed"); else await openPost(st.post);
              }), "danger");
              box.replaceChildren(el("span", "Delete your " + what + "?"), really,
                S.button("Cancel", null, () => box.replaceWith(ownButtons(id, what, title, body))));
              really.focus();
            }));
            return box;
          }

          function openEditor(box, id, title, body) {
            const form = el("form", null, "stack");
            const fields = [];
            if (title !== null) fields.push(["title", "Title", title, "input"]);
            fields.push(["body", title !== null ? "Body" : "Text", body, "textarea"]);
            for (const [key, label, value, tag] of fields) {
              const input = el(tag); input.id = "edit-" + key + "-" + id.slice(0, 12); input.value = value; input.name = key;
              const l = el("label", label); l.htmlFor = input.id;
              form.append(l, input);
            }
            const save = el("button", "Save"); save.type = "submit";
            form.append(save);
            form.addEventListener("submit", (ev) => {
              ev.preventDefault();
              S.guarded(async () => {
                const args = { ref: id };
                if (title !== null) {
                  args.title = form.elements.title.value; args.body = form.elements.body.value;
                } else {
                  args.text = form.elements.body.value;
                }
                await S.api("edit", args);
                await openPost(st.post);
              });
            });
            box.replaceChildren(form);
            form.elements[0].focus();
          }

          async function submitCompose(ev) {
            ev.preventDefault();
            await S.guarded(async () => {
              const ask = $("compose-kind").value === "ask";
              const text = $("compose-title-input").value, body = $("compose-body").value;
              const pack = $("compose-pack").value;
              const args = ask ? { pack, prompt: text, body } : { pack, title: text, body };
              const file = $("compose-picture").files[0];
              if (file && file.size > S.pictures.maxUpload) throw new Error("the picture file is larger than 8 MiB");
              if (file) await S.upload(ask ? "ask" : "post", args, file); else await S.api(ask ? "ask" : "post", args);
              $("compose-form").reset();
              await S.go("feed");
            });
          }

          S.onEvent((e) => {
            if (e.event === "post" && S.state.screen === "feed") {
              const filter = $("feed-pack").value;
              if (filter && e.post.pack !== filter) return;
              if (document.querySelector('#feed-list li[data-id="' + CSS.escape(e.post.id) + '"]')) return;
              const li = postItem(e.post);
              li.classList.add("new");
              const list = $("feed-list");
              const empty = list.querySelector("li.meta");
              if (empty) empty.remove();
              list.prepend(li);
            } else if (e.event === "comment" && S.state.screen === "post" && e.comment.post === st.post) {
              if (document.querySelector('#comments li[data-id="' + CSS.escape(e.comment.id) + '"]')) return;
              const li = commentItem(e.comment);
              li.classList.add("new");
              $("comments").append(li);
            } else if (e.event === "vote") {
              for (const s of document.querySelectorAll('[data-score="' + CSS.escape(e.target) + '"]')) s.textContent = String(e.score);
            }
          });

          S.screens.feed = {
            load: loadFeed,
            init() {
              $("feed-form").addEventListener("submit", (ev) => { ev.preventDefault(); loadFeed(); });
              $("feed-pack").addEventListener("change", loadFeed);
              $("feed-sort").addEventListener("change", loadFeed);
              $("compose-form").addEventListener("submit", submitCompose);
              $("compose-kind").addEventListener("change", () => {
                $("compose-title-label").textContent = $("compose-kind").value === "ask" ? "Prompt" : "Title";
              });
              $("comment-form").addEventListener("submit", (ev) => {
                ev.preventDefault();
                S.guarded(async () => {
                  await S.api("comment", { target: st.post, text: $("comment-text").value });
                  $("comment-text").value = "";
                  await openPost(st.post);
                });
              });
            },
          };
          S.screens.packs = { load: loadPacks };
          S.screens.compose = { load: () => Promise.resolve() };
          S.openPost = openPost;
        })(window.Skwad);
        """#
}
