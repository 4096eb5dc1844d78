extension WebPage {
    /// Direct messages: your conversations, one conversation with its delivery marks (sent,
    /// then delivered when the recipient's node acknowledged it), the send form, and the safety
    /// number to compare in person (`verify`, `--confirm`). Through `chat`, `dm` and `verify`;
    /// the `dm` and `delivered` events update an open conversation live.
    static let messagesScript = #"""
        "use strict";
        (function (S) {
          const { $, el } = S;
          const st = { peer: null, to: null };

          function messageItem(m) {
            const li = el("li", null, m.mine ? "mine" : "theirs");
            li.dataset.id = m.id;
            li.append(el("p", m.text, "body"));
            const meta = [m.mine ? "you" : m.peer, S.ago(m.time)];
            const mark = el("span", m.mine ? (m.delivered ? "delivered" : "sent") : "", "mark");
            mark.dataset.mark = m.mine ? (m.delivered ? "delivered" : "sent") : "";
            const p = el("p", meta.join(" · ") + (m.mine ? " · " : ""), "meta");
            p.append(mark);
            li.append(p);
            return li;
          }

          async function loadChats() {
            await S.guarded(async () => {
              const reply = await S.api("chat", {});
              $("chats-list").replaceChildren(...reply.conversations.map((c) => {
                const li = el("li");
                li.append(S.button(c.peer + (c.verified ? " ✓" : "") + " in " + c.packName, "conversation with " + c.peer,
                  () => openChat(c.peer), "linkish title"));
                li.append(el("p", (c.last.mine ? "you: " : "") + c.last.text, "meta"));
                li.append(el("p", c.count + " messages · " + S.ago(c.last.time), "meta"));
                return li;
              }));
              if (!reply.conversations.length) {
                $("chats-list").append(el("li", "No messages yet: open a post and message its author.", "meta"));
              }
            });
          }

          /// Opens the conversation with `peer` (a tag, or the id of a post, comment or message);
          /// `who` is what to call them before there are messages.
          async function openChat(peer, who) {
            await S.guarded(async () => {
              st.to = peer;
              let reply = null;
              try { reply = await S.api("chat", { with: peer }); } catch (e) { reply = null; }
              st.peer = reply ? reply.peer : who || peer;
              $("chat-title").textContent = "Messages with " + st.peer + (reply && reply.verified ? " ✓" : "");
              $("chat-meta").textContent = reply ? "in " + reply.packName : "";
              $("chat-list").replaceChildren(...(reply ? reply.messages.map(messageItem) : []));
              $("safety").replaceChildren();
              S.show("chat");
            });
          }

          async function showSafety(confirm) {
            await S.guarded(async () => {
              const args = { author: st.peer };
              if (confirm) args.confirm = true;
              const r = await S.api("verify", args);
              const box = $("safety");
              const advice = r.verified ? "Verified ✓" : "Compare it in person or over another channel; if it matches, mark it verified.";
              box.replaceChildren(el("p", "Safety number of you (" + r.me + ") and " + r.peer + ":"),
                el("p", r.safetyNumber, "safety-number"), el("p", advice, "meta"));
              if (!r.verified) box.append(S.button("It matches: mark verified", null, () => showSafety(true)));
            });
          }

          S.onEvent((e) => {
            if (e.event === "dm" && S.state.screen === "chat" && e.message.peer === st.peer) {
              if (!document.querySelector('#chat-list li[data-id="' + CSS.escape(e.message.id) + '"]')) {
                $("chat-list").append(messageItem(e.message));
              }
            } else if (e.event === "dm" && S.state.screen === "chats") {
              loadChats();
            } else if (e.event === "delivered") {
              for (const li of document.querySelectorAll('#chat-list li[data-id="' + CSS.escape(e.id) + '"] .mark')) {
                li.textContent = "delivered"; li.dataset.mark = "delivered";
              }
            }
          });

          S.screens.chats = {
            load: loadChats,
            init() {
              $("chat-form").addEventListener("submit", (ev) => {
                ev.preventDefault();
                S.guarded(async () => {
                  const sent = await S.api("dm", { to: st.to, text: $("chat-text").value });
                  $("chat-text").value = "";
                  await openChat(sent.to);
                });
              });
              $("safety-button").addEventListener("click", () => showSafety(false));
            },
          };
          S.screens.chat = { load: () => Promise.resolve() };
          S.messages = { open: openChat };
        })(window.Skwad);
        """#
}
