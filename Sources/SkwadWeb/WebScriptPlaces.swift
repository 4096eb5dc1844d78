extension WebPage {
    /// Places: the list with each place's rating and distribution, a place with its reviews
    /// and a review form, the swipe deck (touch swipes, arrow keys, buttons, undo), favourites
    /// and a compare table. All through the REPL's verbs (`places`, `place`, `review`, `favs`,
    /// `compare`) and the page's `swipe-key` route (one key of the REPL's swipe mode).
    static let placesScript = #"""
        "use strict";
        (function (S) {
          const { $, el } = S;
          const deck = { place: null, busy: false };

          function money(p) {
            if (p.rentMin == null || p.rentMin <= 0) return null;
            return "$" + p.rentMin + (p.rentMax != null && p.rentMax > p.rentMin ? "–" + p.rentMax : "");
          }

          function rating(p) {
            const s = p.summary;
            if (!s || !s.count) return "no reviews";
            return "★" + avg(s.bayesian) + " (" + s.count + (s.count === 1 ? " review)" : " reviews)");
          }

          function facts(p) {
            return [money(p), p.beds != null ? p.beds + " bd" : null, p.baths > 0 ? p.baths + " ba" : null,
              p.termMonths ? p.termMonths + " mo" : null, p.city, p.landlord ? "landlord " + p.landlord : null, p.packLabel]
              .filter((x) => x !== null && x !== undefined && x !== "").join(" · ");
          }

          /// The distribution of overall ratings, 5★ down to 0★, as meters with their counts.
          function distribution(s) {
            const box = el("dl", null, "distribution");
            const counts = (s && s.distribution) || [0, 0, 0, 0, 0, 0];
            const most = Math.max(1, ...counts);
            for (let stars = 5; stars >= 0; stars--) {
              const m = el("meter"); m.min = 0; m.max = most; m.value = counts[stars];
              m.setAttribute("aria-label", stars + " stars: " + counts[stars]);
              const dd = el("dd"); dd.append(m, el("span", " " + counts[stars]));
              box.append(el("dt", stars + "★"), dd);
            }
            return box;
          }

          function placeItem(p) {
            const li = el("li");
            li.dataset.id = p.id;
            li.append(S.button(p.address, null, () => openPlace(p.id), "linkish title"));
            li.append(el("p", rating(p) + " · " + facts(p), "meta"));
            if (p.summary && p.summary.count) li.append(distribution(p.summary));
            return li;
          }

          async function loadPlaces() {
            await S.guarded(async () => {
              const args = { sort: $("places-sort").value };
              if ($("places-text").value.trim()) args.text = $("places-text").value;
              const reply = await S.api("places", args);
              $("places-list").replaceChildren(...reply.places.map(placeItem));
              if (!reply.places.length) $("places-list").append(el("li", "No places yet.", "meta"));
            });
          }

          async function openPlace(id) {
            await S.guarded(async () => {
              const r = await S.api("place", { place: id });
              const p = r.place, s = p.summary;
              deck.open = p.id;
              $("place-title").textContent = p.address;
              $("place-meta").textContent = facts(p);
              const rows = [["rating", rating(p)], ["average overall", avg(s.overall) + " / 5"],
                ["location", avg(s.location)], ["management", avg(s.management)], ["amenities", avg(s.amenities)],
                ["would live there again", s.againShare == null ? "–" : Math.round(s.againShare * 100) + "%"],
                ["drawn towards", r.packMean == null ? "–"
                  : avg(r.packMean) + " (pack mean of " + r.packReviews + " reviews, weight " + r.priorWeight + ")"]];
              const summary = el("dl", null, "summary");
              for (const [k, v] of rows) summary.append(el("dt", k), el("dd", v));
              $("place-summary").replaceChildren(summary, distribution(s));
              $("place-reviews").replaceChildren(...r.reviews.map((v) => {
                const li = el("li");
                const who = v.author + (v.name ? " “" + v.name + "”" : "");
                li.append(el("p", [who, v.overall + "/5", S.ago(v.time), v.edited ? "edited" : null, v.hidden ? "hidden" : null]
                  .filter((x) => x).join(" · "), "meta"));
                if (v.text) li.append(el("p", v.text, "body"));
                if (v.reply) li.append(el("p", "↳ landlord: " + v.reply.text, "body reply"));
                return li;
              }));
              if (!r.reviews.length) $("place-reviews").append(el("li", "No reviews yet.", "meta"));
              S.show("place");
            });
          }

          function avg(x) { return x == null ? "–" : Number(x).toFixed(1); }

          // --- the swipe deck ---

          function showCard(reply) {
            deck.place = reply.swipe;
            const card = $("swipe-card");
            card.style.transform = "";
            card.replaceChildren();
            if (!deck.place) {
              card.append(el("p", "No place left to swipe.", "meta"));
              $("swipe-left").textContent = "";
              return;
            }
            const p = deck.place;
            card.dataset.id = p.id;
            card.append(el("h3", p.address), el("p", rating(p), "rating"), el("p", facts(p), "meta"));
            if (p.summary && p.summary.count) card.append(distribution(p.summary));
            $("swipe-left").textContent = reply.left + " more after this one";
          }

          async function loadDeck() {
            await S.guarded(async () => showCard(await S.api("swipe", {})));
            $("swipe-card").focus();
          }

          /// One key of the REPL's swipe mode: y (favourite), n (pass), u (undo).
          async function key(k) {
            if (deck.busy || (k !== "u" && !deck.place)) return;
            deck.busy = true;
            await S.guarded(async () => {
              const reply = await S.apiPath("swipe-key", { key: k, place: k === "u" ? null : deck.place.id });
              $("swipe-status").textContent = reply.message;
              showCard(reply);
            });
            deck.busy = false;
          }

          function initDeck() {
            const card = $("swipe-card");
            let start = null;
            card.addEventListener("touchstart", (e) => {
              if (e.touches.length !== 1) return;
              start = { x: e.touches[0].clientX, y: e.touches[0].clientY, dx: 0 };
            }, { passive: true });
            // A mostly horizontal drag is the card's, not the page's: prevented, so the browser
            // starts no scroll or fling (whose end would swallow the next tap, Undo's).
            card.addEventListener("touchmove", (e) => {
              if (!start) return;
              start.dx = e.touches[0].clientX - start.x;
              if (Math.abs(start.dx) < Math.abs(e.touches[0].clientY - start.y)) return;
              e.preventDefault();
              card.style.transform = "translateX(" + start.dx + "px) rotate(" + start.dx / 20 + "deg)";
            }, { passive: false });
            const end = () => {
              if (!start) return;
              const dx = start.dx;
              start = null;
              card.style.transform = "";
              if (dx > 80) key("y"); else if (dx < -80) key("n");
            };
            card.addEventListener("touchend", end);
            card.addEventListener("touchcancel", () => { start = null; card.style.transform = ""; });
            document.addEventListener("keydown", (e) => {
              if (S.state.screen !== "swipe" || e.altKey || e.ctrlKey || e.metaKey) return;
              if (e.target.closest && e.target.closest("input, textarea, select")) return;
              const k = { ArrowRight: "y", ArrowLeft: "n", ArrowDown: "u", u: "u", Backspace: "u" }[e.key];
              if (!k) return;
              e.preventDefault();
              key(k);
            });
            $("swipe-yes").addEventListener("click", () => key("y"));
            $("swipe-no").addEventListener("click", () => key("n"));
            $("swipe-undo").addEventListener("click", () => key("u"));
          }

          // --- favourites and compare ---

          async function loadFavs() {
            await S.guarded(async () => {
              const reply = await S.api("favs", {});
              $("favs-list").replaceChildren(...reply.favs.map((p) => {
                const li = el("li"); li.dataset.id = p.id;
                const box = el("input"); box.type = "checkbox"; box.value = p.id; box.id = "fav-" + p.id;
                const label = el("label", p.address); label.htmlFor = box.id;
                li.append(box, label, el("p", rating(p) + " · " + facts(p), "meta"));
                return li;
              }));
              if (!reply.favs.length) $("favs-list").append(el("li", "No favourites yet: swipe right on a place.", "meta"));
              $("compare-table").replaceChildren();
            });
          }

          const compareRows = [
            ["rent per person", (c) => c.rentPerPerson, "low", (v) => "$" + Math.round(v)],
            ["term", (c) => c.place.termMonths || null, "high", (v) => v + " mo"],
            ["beds", (c) => c.place.beds, "high", (v) => String(v)],
            ["distance", (c) => c.distance, "low", (v) => (v / 1000).toFixed(1) + " km"],
            ["rating", (c) => c.place.summary.bayesian, "high", (v) => v.toFixed(1)],
            ["location", (c) => c.place.summary.location, "high", (v) => v.toFixed(1)],
            ["management", (c) => c.place.summary.management, "high", (v) => v.toFixed(1)],
            ["amenities", (c) => c.place.summary.amenities, "high", (v) => v.toFixed(1)],
            ["again", (c) => c.place.summary.againShare, "high", (v) => Math.round(v * 100) + "%"],
            ["reviews", (c) => c.place.summary.count, "high", (v) => String(v)],
          ];

          /// The compare table: a column per place, a row per figure; the best of a row (at
          /// least two values that differ) is marked "best".
          async function compare() {
            const ids = [...document.querySelectorAll("#favs-list input:checked")].map((b) => b.value);
            if (ids.length < 2 || ids.length > 5) { S.showError("Pick 2 to 5 favourites to compare."); return; }
            await S.guarded(async () => {
              const reply = await S.api("compare", { places: ids });
              const cols = reply.compare;
              const table = el("table");
              table.append(el("caption", "Your favourites side by side"));
              const head = el("tr");
              head.append(el("th", ""));
              for (const c of cols) { const th = el("th", c.place.address); th.scope = "col"; head.append(th); }
              const thead = el("thead"); thead.append(head);
              const tbody = el("tbody");
              for (const [name, get, better, show] of compareRows) {
                const values = cols.map((c) => { const v = get(c); return v === null || v === undefined ? null : v; });
                const known = values.filter((v) => v !== null);
                const differ = known.length >= 2 && new Set(known).size > 1;
                const best = differ ? (better === "low" ? Math.min(...known) : Math.max(...known)) : null;
                const tr = el("tr"); const th = el("th", name); th.scope = "row"; tr.append(th);
                for (const v of values) {
                  const td = el("td", v === null ? "–" : show(v));
                  if (best !== null && v === best) { td.classList.add("best"); td.append(el("span", " best", "badge")); }
                  tr.append(td);
                }
                tbody.append(tr);
              }
              table.append(thead, tbody);
              $("compare-table").replaceChildren(table);
            });
          }

          S.screens.places = {
            load: loadPlaces,
            init() {
              $("places-form").addEventListener("submit", (ev) => { ev.preventDefault(); loadPlaces(); });
              $("places-sort").addEventListener("change", loadPlaces);
              $("review-form").addEventListener("submit", (ev) => {
                ev.preventDefault();
                S.guarded(async () => {
                  const f = $("review-form").elements;
                  await S.api("review", { place: deck.open, overall: Number(f.overall.value), location: Number(f.location.value),
                    management: Number(f.management.value), amenities: Number(f.amenities.value), again: f.again.value,
                    text: f.text.value });
                  $("review-form").reset();
                  await openPlace(deck.open);
                });
              });
              initDeck();
              $("compare-button").addEventListener("click", compare);
            },
          };
          S.screens.place = { load: () => Promise.resolve() };
          S.places = { item: placeItem, open: openPlace };
          S.screens.swipe = { load: loadDeck };
          S.screens.favs = { load: loadFavs };
        })(window.Skwad);
        """#
}
