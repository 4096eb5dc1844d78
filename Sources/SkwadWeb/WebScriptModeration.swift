extension WebPage {
    /// Moderation and the map. Moderation: the open reports of the packs you moderate (hide the
    /// target, dismiss the report), ban and unban there; for everyone, any joined pack's log,
    /// the pseudonyms you blocked and the packs you muted (unblock, unmute, mute); on a post or
    /// comment, Hide and Unhide for the pack's Alpha, Report for everyone else, and Block of
    /// its author for you (`hide`, `unhide`, `report`, `reports`, `dismiss`, `log`, `ban`,
    /// `unban`, `block`, `unblock`, `mute`, `unmute`, `blocks`): what the REPL lets each do. The map: the packs around you as an SVG of
    /// their fences from `map`'s distances and bearings, you at the centre, north up; the
    /// browser's location is asked only when "Use my location" is pressed, and sets the node's
    /// (`locate`).
    static let moderationScript = #"""
        "use strict";
        (function (S) {
          const { $, el } = S;
          const svgNS = "http://www.w3.org/2000/svg";
          const st = { alpha: new Set() };

          /// The packs you are the Alpha of, from a `den` reply.
          function setAlpha(den) { st.alpha = new Set(den.packs.map((p) => p.id)); }

          async function loadAlpha() {
            const den = await S.api("den", {});
            setAlpha(den);
            return den.packs;
          }

          /// Tools for a post or comment `x` of pack `pack`: Hide/Unhide for its moderator,
          /// Report for the others (a reason asked in the page); Block of its author for anyone
          /// but the author.
          function tools(x, pack, mine) {
            const box = el("div", null, "row mod");
            if (st.alpha.has(pack)) {
              const hidden = x.hidden !== null && x.hidden !== undefined && x.hidden !== false;
              box.append(S.button(hidden ? "Unhide" : "Hide", (hidden ? "unhide" : "hide") + " for everyone", () => S.guarded(async () => {
                await S.api(hidden ? "unhide" : "hide", hidden ? { target: x.id } : { target: x.id, reason: "" });
                box.replaceChildren(el("span", hidden ? "restored" : "hidden", "meta"));
              })));
            } else if (!mine) {
              box.append(S.button("Report", "report to the pack's moderators", () => {
                const form = el("form", null, "row");
                const input = el("input"); input.id = "report-" + x.id.slice(0, 12); input.required = true;
                const label = el("label", "Reason"); label.htmlFor = input.id;
                const send = el("button", "Send report"); send.type = "submit";
                form.append(label, input, send);
                form.addEventListener("submit", (ev) => {
                  ev.preventDefault();
                  S.guarded(async () => {
                    await S.api("report", { target: x.id, reason: input.value });
                    box.replaceChildren(el("span", "reported to the moderators", "meta"));
                  });
                });
                box.replaceChildren(form);
                input.focus();
              }));
            }
            if (!mine && x.author) {
              box.append(S.button("Block " + x.author, "hide " + x.author + "'s posts and comments for you", () => S.guarded(async () => {
                const r = await S.api("block", { author: x.author });
                box.replaceChildren(el("span", r.message, "meta"));
              })));
            }
            return box;
          }

          /// Fills `select` with `packs`, keeping its choice when it is still there.
          function fillPacks(select, packs) {
            const kept = select.value;
            select.replaceChildren(...packs.map((p) => { const o = el("option", p.label || p.name); o.value = p.id; return o; }));
            if ([...select.options].some((o) => o.value === kept)) select.value = kept;
          }

          async function loadModeration() {
            await S.guarded(async () => {
              const alpha = await loadAlpha();
              const joined = (await S.api("packs", {})).packs.filter((p) => p.joined);
              fillPacks($("mod-pack"), joined);
              fillPacks($("mute-pack"), joined);
              $("mod-none").hidden = alpha.length > 0;
              $("ban-form").hidden = alpha.length === 0;
              await loadBlocks(joined);
              const r = await S.api("reports", {}).catch(() => ({ reports: [] }));
              $("reports-list").replaceChildren(...r.reports.map((x) => {
                const li = el("li");
                li.dataset.id = x.id;
                li.append(el("p", "“" + x.excerpt + "”", "body"));
                li.append(el("p", ["reported by " + x.reporter, S.ago(x.time), "reason: " + x.reason, x.hidden ? "hidden" : null]
                  .filter((v) => v).join(" · "), "meta"));
                const row = el("div", null, "row");
                if (!x.hidden) row.append(S.button("Hide it", "hide the reported post or comment", () => S.guarded(async () => {
                  await S.api("hide", { target: x.target, reason: x.reason });
                  await loadModeration();
                })));
                row.append(S.button("Dismiss", "set this report aside", () => S.guarded(async () => {
                  await S.api("dismiss", { report: x.id });
                  await loadModeration();
                })));
                li.append(row);
                return li;
              }));
              if (!r.reports.length) $("reports-list").append(el("li", "No open reports.", "meta"));
              if ($("mod-pack").value) await loadLog();
            });
          }

          /// The pseudonyms you blocked and the packs you muted, each with its undo.
          async function loadBlocks(joined) {
            const b = await S.api("blocks", {});
            const names = new Map(joined.map((p) => [p.id, p.label || p.name]));
            const items = b.blocked.map((tag) => {
              const li = el("li", tag + " (blocked) ");
              li.append(S.button("Unblock", "show " + tag + "'s posts and comments again", () => S.guarded(async () => {
                await S.api("unblock", { author: tag });
                await loadModeration();
              })));
              return li;
            }).concat(b.muted.map((id) => {
              const li = el("li", (names.get(id) || id.slice(0, 8)) + " (muted) ");
              li.append(S.button("Unmute", "put this pack back in your feed", () => S.guarded(async () => {
                await S.api("unmute", { pack: id });
                await loadModeration();
              })));
              return li;
            }));
            $("blocks-list").replaceChildren(...items);
            if (!items.length) $("blocks-list").append(el("li", "Nobody blocked, no pack muted.", "meta"));
          }

          async function loadLog() {
            await S.guarded(async () => {
              const r = await S.api("log", { pack: $("mod-pack").value });
              $("log-list").replaceChildren(...r.log.map((e) => el("li",
                [S.ago(e.time), e.author + (e.role ? " (" + e.role + ")" : ""), e.action, e.subject || e.target || "", e.detail || ""]
                  .filter((v) => v).join(" · "))));
              if (!r.log.length) $("log-list").append(el("li", "Nothing in the log yet.", "meta"));
            });
          }

          async function ban(verb) {
            await S.guarded(async () => {
              const args = { pack: $("mod-pack").value, author: $("ban-author").value.trim(), reason: $("ban-reason").value };
              const r = await S.api(verb, args);
              $("ban-status").textContent = r.message;
              await loadLog();
            });
          }

          // --- the map ---

          async function loadMap() {
            await S.guarded(async () => {
              const m = await S.api("map", {});
              const size = 320, half = size / 2, scale = half / m.radius;
              const svg = document.createElementNS(svgNS, "svg");
              svg.setAttribute("viewBox", "0 0 " + size + " " + size);
              svg.setAttribute("class", "map");
              svg.setAttribute("role", "img");
              svg.setAttribute("aria-label", "packs around you within " + Math.round(m.radius) + " m, north up");
              const add = (tag, attrs, parent) => {
                const e = document.createElementNS(svgNS, tag);
                for (const k of Object.keys(attrs)) e.setAttribute(k, attrs[k]);
                (parent || svg).append(e);
                return e;
              };
              add("rect", { width: size, height: size, class: "map-bg" });
              const legend = [];
              for (const p of m.packs) {
                if (p.distance === null || p.bearing === null || p.radius === null) {
                  legend.push(p.label + ": no fence (everywhere)");
                  continue;
                }
                const rad = p.bearing * Math.PI / 180;
                const x = half + Math.sin(rad) * p.distance * scale, y = half - Math.cos(rad) * p.distance * scale;
                const g = add("g", { class: p.joined ? "fence joined" : "fence" });
                add("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: Math.max(2, p.radius * scale).toFixed(1) }, g);
                const t = add("text", { x: x.toFixed(1), y: (y + 5).toFixed(1), "text-anchor": "middle" }, g);
                t.textContent = p.letter || "·";
                legend.push((p.letter || "·") + "  " + p.label + ": " + Math.round(p.distance) + " m, bearing " + Math.round(p.bearing)
                  + "°, radius " + Math.round(p.radius) + " m" + (p.joined ? " (joined)" : ""));
              }
              add("circle", { cx: half, cy: half, r: 5, class: "me" });
              add("text", { x: half, y: 14, "text-anchor": "middle", class: "north" }).textContent = "N";
              $("map").replaceChildren(svg);
              $("map-legend").replaceChildren(...legend.map((l) => el("li", l)));
              $("map-meta").textContent = "you at " + (m.center || "an unknown place") + "; " + Math.round(m.radius) + " m to the edge";
            });
          }

          function locate() {
            if (!navigator.geolocation) { S.showError("This browser cannot tell its location."); return; }
            $("map-status").textContent = "asking the browser for your location…";
            navigator.geolocation.getCurrentPosition((pos) => S.guarded(async () => {
              const at = pos.coords.latitude.toFixed(6) + "," + pos.coords.longitude.toFixed(6);
              const r = await S.api("locate", { at });
              $("map-status").textContent = r.message;
              await loadMap();
            }), (err) => { $("map-status").textContent = "no location: " + err.message; }, { timeout: 15000, maximumAge: 60000 });
          }

          S.screens.moderation = {
            load: loadModeration,
            init() {
              $("mod-pack").addEventListener("change", loadLog);
              $("ban-form").addEventListener("submit", (ev) => { ev.preventDefault(); ban("ban"); });
              $("unban-button").addEventListener("click", () => ban("unban"));
              $("mute-form").addEventListener("submit", (ev) => {
                ev.preventDefault();
                S.guarded(async () => {
                  await S.api("mute", { pack: $("mute-pack").value });
                  await loadModeration();
                });
              });
            },
          };
          S.screens.map = {
            load: loadMap,
            init() { $("locate-button").addEventListener("click", locate); },
          };
          S.moderation = { tools, setAlpha };
        })(window.Skwad);
        """#
}
