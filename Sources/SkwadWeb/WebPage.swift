import Hummingbird

/// The page: HTML, CSS and plain JavaScript compiled into the binary, served at `/`,
/// `/app.css`, `/app.js` (the core) and `/js/NAME.js` (a screen's script each, `scripts`).
/// Nothing in it is secret (the token stays in the URL's `#`), so
/// these need no token; the `Host` check and the security headers still apply.
enum WebPage {
    static func addRoutes(to router: Router<some RequestContext>) {
        router.get("/") { _, _ in asset(html, "text/html; charset=utf-8") }
        router.get("/app.css") { _, _ in asset(css, "text/css; charset=utf-8") }
        router.get("/app.js") { _, _ in asset(script, "text/javascript; charset=utf-8") }
        for (name, text) in scripts {
            router.get("/js/\(name).js") { _, _ in asset(text, "text/javascript; charset=utf-8") }
        }
    }

    static func asset(_ text: String, _ type: String) -> Response {
        var h = HTTPFields()
        h[.contentType] = type
        h[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: h, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static let html = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="no-referrer">
        <title>Skwad</title>
        <link rel="stylesheet" href="/app.css">
        <script src="/app.js" defer></script>
        \(scripts.map { "<script src=\"/js/\($0.name).js\" defer></script>" }.joined(separator: "\n"))
        </head>
        <body>
        <header>
          <h1>Skwad</h1>
          <nav aria-label="Screens">
            <button type="button" data-screen="feed" aria-current="page">Feed</button>
            <button type="button" data-screen="packs">Packs</button>
            <button type="button" data-screen="compose">Post</button>
            <button type="button" data-screen="places">Places</button>
            <button type="button" data-screen="swipe">Swipe</button>
            <button type="button" data-screen="favs">Favourites</button>
            <button type="button" data-screen="chats">Messages</button>
            <button type="button" data-screen="inbox">Inbox</button>
            <button type="button" data-screen="den">Den</button>
            <button type="button" data-screen="search">Search</button>
            <button type="button" data-screen="map">Map</button>
            <button type="button" data-screen="moderation">Moderation</button>
          </nav>
          <p id="live" role="status" aria-live="polite">connecting…</p>
        </header>
        <main>
          <p id="error" role="alert" hidden></p>
          <section id="screen-feed" aria-labelledby="feed-title">
            <h2 id="feed-title">Feed</h2>
            <form id="feed-form" class="row">
              <label for="feed-pack">Pack</label>
              <select id="feed-pack"><option value="">all my packs</option></select>
              <label for="feed-sort">Sort</label>
              <select id="feed-sort"><option value="new">new</option><option value="top">top</option></select>
              <button type="submit">Refresh</button>
            </form>
            <ol id="feed-list" class="posts"></ol>
          </section>
          <section id="screen-packs" aria-labelledby="packs-title" hidden>
            <h2 id="packs-title">Packs around you</h2>
            <ol id="packs-list" class="packs"></ol>
            <h3>Invite-only packs</h3>
            <form id="private-form" class="row">
              <label for="private-name">New invite-only pack</label>
              <input id="private-name" maxlength="64" required>
              <label for="private-radius">Radius (m, optional)</label>
              <input id="private-radius" type="number" min="1" step="1">
              <button type="submit">Create</button>
            </form>
            <form id="code-form" class="row">
              <label for="join-code">Join code</label>
              <input id="join-code" autocomplete="off" spellcheck="false" required>
              <button type="submit">Join</button>
            </form>
          </section>
          <section id="screen-compose" aria-labelledby="compose-title" hidden>
            <h2 id="compose-title">New post</h2>
            <form id="compose-form" class="stack">
              <label for="compose-kind">Kind</label>
              <select id="compose-kind"><option value="post">a post</option><option value="ask">an ask for captions</option></select>
              <label for="compose-pack">Pack</label>
              <select id="compose-pack" required></select>
              <label for="compose-title-input" id="compose-title-label">Title</label>
              <input id="compose-title-input" maxlength="200" required>
              <label for="compose-body">Body</label>
              <textarea id="compose-body" rows="5"></textarea>
              <label for="compose-picture">Picture (JPEG, PNG or WebP; optional)</label>
              <input id="compose-picture" type="file" accept="image/jpeg,image/png,image/webp">
              <button type="submit">Post</button>
            </form>
          </section>
          <section id="screen-post" aria-labelledby="post-title" hidden>
            <h2 id="post-title"></h2>
            <p id="post-meta" class="meta"></p>
            <div id="post-picture"></div>
            <p id="post-body" class="body"></p>
            <div class="row" id="post-votes"></div>
            <div id="post-own"></div>
            <h3 id="comments-title">Comments</h3>
            <ol id="comments" class="comments"></ol>
            <form id="comment-form" class="stack">
              <label for="comment-text" id="comment-label">Your comment</label>
              <textarea id="comment-text" rows="3" required></textarea>
              <button type="submit">Send</button>
            </form>
          </section>
          <section id="screen-places" aria-labelledby="places-title" hidden>
            <h2 id="places-title">Places</h2>
            <form id="places-form" class="row">
              <label for="places-text">Find</label>
              <input id="places-text" type="search">
              <label for="places-sort">Sort</label>
              <select id="places-sort">
                <option value="rating">rating</option><option value="reviews">reviews</option><option value="rent">rent</option>
                <option value="distance">distance</option><option value="term">term</option><option value="new">new</option>
              </select>
              <button type="submit">Search</button>
            </form>
            <ol id="places-list" class="places"></ol>
          </section>
          <section id="screen-place" aria-labelledby="place-title" hidden>
            <h2 id="place-title"></h2>
            <p id="place-meta" class="meta"></p>
            <div id="place-summary"></div>
            <h3>Reviews</h3>
            <ol id="place-reviews" class="comments"></ol>
            <form id="review-form" class="stack">
              <h3>Your review</h3>
              <label for="review-overall">Overall (0–5)</label>
              <input id="review-overall" name="overall" type="number" min="0" max="5" step="0.5" required>
              <label for="review-location">Location (1–5)</label>
              <input id="review-location" name="location" type="number" min="1" max="5" step="1" required>
              <label for="review-management">Management (1–5)</label>
              <input id="review-management" name="management" type="number" min="1" max="5" step="1" required>
              <label for="review-amenities">Amenities (1–5)</label>
              <input id="review-amenities" name="amenities" type="number" min="1" max="5" step="1" required>
              <label for="review-again">Would live there again</label>
              <select id="review-again" name="again"><option value="yes">yes</option><option value="no">no</option></select>
              <label for="review-text">Text</label>
              <textarea id="review-text" name="text" rows="3"></textarea>
              <button type="submit">Review</button>
            </form>
          </section>
          <section id="screen-swipe" aria-labelledby="swipe-title" hidden>
            <h2 id="swipe-title">Swipe places</h2>
            <p class="meta" id="swipe-help">Swipe right or press → to keep a place as a favourite, left or ← to pass;
              Undo (or ↓) brings the last one back.</p>
            <article id="swipe-card" class="card" tabindex="0" aria-describedby="swipe-help" aria-live="polite"></article>
            <div class="row">
              <button type="button" id="swipe-no" aria-label="pass (left arrow)">✗ Pass</button>
              <button type="button" id="swipe-undo" aria-label="undo the last swipe (down arrow)">↶ Undo</button>
              <button type="button" id="swipe-yes" aria-label="favourite (right arrow)">♥ Favourite</button>
            </div>
            <p id="swipe-left" class="meta"></p>
            <p id="swipe-status" class="meta" role="status"></p>
          </section>
          <section id="screen-favs" aria-labelledby="favs-title" hidden>
            <h2 id="favs-title">Favourites</h2>
            <ol id="favs-list" class="places"></ol>
            <button type="button" id="compare-button">Compare selected</button>
            <div id="compare-table" class="scroll"></div>
          </section>
          <section id="screen-chats" aria-labelledby="chats-title" hidden>
            <h2 id="chats-title">Messages</h2>
            <ol id="chats-list" class="packs"></ol>
          </section>
          <section id="screen-inbox" aria-labelledby="inbox-title" hidden>
            <h2 id="inbox-title">Inbox</h2>
            <ol id="inbox-list" class="posts"></ol>
          </section>
          <section id="screen-den" aria-labelledby="den-title" hidden>
            <h2 id="den-title">Your den</h2>
            <p id="den-summary" class="meta"></p>
            <h3>Packs you are the Alpha of</h3>
            <ol id="den-packs" class="packs"></ol>
            <h3>Your posts</h3>
            <ol id="den-posts" class="posts"></ol>
            <h3>Your comments</h3>
            <ol id="den-comments" class="posts"></ol>
            <h3>Places you added</h3>
            <ol id="den-places" class="posts"></ol>
            <h3>Your reviews</h3>
            <ol id="den-reviews" class="posts"></ol>
          </section>
          <section id="screen-search" aria-labelledby="search-title" hidden>
            <h2 id="search-title">Search</h2>
            <form id="search-form" class="row">
              <label for="search-text">Words</label>
              <input id="search-text" type="search" required>
              <button type="submit">Search</button>
            </form>
            <ol id="search-list" class="posts"></ol>
          </section>
          <section id="screen-map" aria-labelledby="map-title" hidden>
            <h2 id="map-title">Map of packs around you</h2>
            <div class="row">
              <button type="button" id="locate-button">Use my location</button>
              <p id="map-status" class="meta" role="status"></p>
            </div>
            <p id="map-meta" class="meta"></p>
            <div id="map"></div>
            <ul id="map-legend" class="legend"></ul>
          </section>
          <section id="screen-moderation" aria-labelledby="moderation-title" hidden>
            <h2 id="moderation-title">Moderation</h2>
            <p id="mod-none" class="meta" hidden>You moderate no pack: packs you create are yours to moderate.
              Anyone can report a post or comment, block its author for themselves, mute a pack and read a pack's log.</p>
            <h3>Open reports</h3>
            <ol id="reports-list" class="posts"></ol>
            <h3>Hidden for you</h3>
            <ol id="blocks-list" class="posts"></ol>
            <form id="mute-form" class="row">
              <label for="mute-pack">Mute a pack</label>
              <select id="mute-pack"></select>
              <button type="submit">Mute</button>
            </form>
            <h3>Log and bans</h3>
            <div class="row">
              <label for="mod-pack">Log of pack</label>
              <select id="mod-pack"></select>
            </div>
            <ol id="log-list" class="posts"></ol>
            <form id="ban-form" class="row">
              <label for="ban-author">Pseudonym</label>
              <input id="ban-author" placeholder="anon·3f2a9c01" required>
              <label for="ban-reason">Reason</label>
              <input id="ban-reason">
              <button type="submit">Ban</button>
              <button type="button" id="unban-button">Unban</button>
            </form>
            <p id="ban-status" class="meta" role="status"></p>
          </section>
          <section id="screen-chat" aria-labelledby="chat-title" hidden>
            <h2 id="chat-title"></h2>
            <p id="chat-meta" class="meta"></p>
            <ol id="chat-list" class="messages"></ol>
            <form id="chat-form" class="stack">
              <label for="chat-text">Your message</label>
              <textarea id="chat-text" rows="2" maxlength="600" required></textarea>
              <button type="submit">Send</button>
            </form>
            <button type="button" id="safety-button">Safety number</button>
            <div id="safety"></div>
          </section>
        </main>
        </body>
        </html>
        """

    static let css = """
        :root { --bg: #ffffff; --fg: #1a1a1a; --muted: #4a4a4a; --accent: #0b57d0; --line: #c4c4c4; --bad: #a50e0e; }
        @media (prefers-color-scheme: dark) {
          :root { --bg: #121212; --fg: #ececec; --muted: #b8b8b8; --accent: #8ab4f8; --line: #444444; --bad: #f28b82; }
        }
        * { box-sizing: border-box; }
        [hidden] { display: none !important; }
        body { margin: 0; font: 16px/1.5 system-ui, sans-serif; background: var(--bg); color: var(--fg); }
        header { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1rem; padding: .5rem 1rem;
          border-bottom: 1px solid var(--line); }
        h1 { font-size: 1.25rem; margin: 0; }
        nav { display: flex; flex-wrap: wrap; gap: .5rem; }
        main { max-width: 48rem; margin: 0 auto; padding: 1rem; }
        button, input, select, textarea { font: inherit; color: inherit; background: var(--bg);
          border: 1px solid var(--line); border-radius: 4px; padding: .4rem .6rem; min-height: 2.5rem; }
        button { cursor: pointer; }
        button[aria-current="page"] { border-color: var(--accent); color: var(--accent); font-weight: 600; }
        :focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
        .row { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem; }
        .stack { display: flex; flex-direction: column; gap: .35rem; }
        .stack button { align-self: flex-start; }
        ol.posts, ol.packs, ol.comments, ol.places, ol.messages { list-style: none; padding: 0; margin: 0; }
        ol.posts > li, ol.packs > li, ol.comments > li, ol.places > li { border-bottom: 1px solid var(--line); padding: .6rem 0; }
        .depth-1 { margin-left: 1rem; } .depth-2 { margin-left: 2rem; } .depth-3 { margin-left: 3rem; }
        .depth-4 { margin-left: 4rem; } .depth-5 { margin-left: 5rem; } .depth-6 { margin-left: 6rem; }
        figure { margin: .4rem 0; }
        figure img { display: block; max-width: 100%; border-radius: 4px; }
        figure.thumb img { max-height: 12rem; }
        figure.picture img { max-height: 80vh; }
        figure.pending img { display: none; }
        .own { margin-top: .4rem; }
        .danger { border-color: var(--bad); color: var(--bad); }
        dl.distribution { display: grid; grid-template-columns: auto 1fr; gap: 0 .5rem; margin: .3rem 0; font-size: .875rem; }
        dl.distribution dd { margin: 0; display: flex; align-items: center; }
        dl.distribution meter { width: 10rem; max-width: 60vw; }
        dl.summary { display: grid; grid-template-columns: auto 1fr; gap: .1rem .75rem; }
        dl.summary dt { color: var(--muted); } dl.summary dd { margin: 0; }
        .card { border: 1px solid var(--line); border-radius: 12px; padding: 1rem; margin: .75rem 0; min-height: 12rem;
          touch-action: pan-y; user-select: none; transition: transform .15s ease-out; background: var(--bg); }
        .card h3 { margin-top: 0; overflow-wrap: anywhere; }
        .scroll { overflow-x: auto; }
        table { border-collapse: collapse; margin-top: .75rem; }
        th, td { border: 1px solid var(--line); padding: .3rem .5rem; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
        td.best { font-weight: 600; }
        .badge { font-size: .75rem; color: var(--accent); }
        ol.messages > li { margin: .4rem 0; padding: .4rem .6rem; border-radius: 8px; border: 1px solid var(--line); max-width: 85%; }
        ol.messages > li.mine { margin-left: auto; border-color: var(--accent); }
        svg.map { width: 20rem; max-width: 100%; height: auto; display: block; margin: .5rem 0; }
        svg.map .map-bg { fill: var(--bg); stroke: var(--line); }
        svg.map .fence circle { fill: rgba(11, 87, 208, .08); stroke: var(--muted); stroke-dasharray: 3 2; }
        svg.map .fence.joined circle { stroke: var(--accent); stroke-dasharray: none; }
        svg.map text { fill: var(--fg); font-size: 14px; }
        svg.map .me { fill: var(--bad); }
        svg.qr { width: 12rem; max-width: 100%; height: auto; display: block; margin: .5rem 0; }
        .code { font-family: ui-monospace, monospace; overflow-wrap: anywhere; user-select: all; }
        .safety-number { font: 600 1.25rem/1.4 ui-monospace, monospace; letter-spacing: .05em; }
        .meta, #live { color: var(--muted); font-size: .875rem; margin: 0; }
        .body { white-space: pre-wrap; overflow-wrap: anywhere; }
        .title { font-weight: 600; overflow-wrap: anywhere; }
        .linkish { border: none; padding: 0; min-height: auto; color: var(--accent); text-align: left; text-decoration: underline; }
        #error { color: var(--bad); font-weight: 600; }
        .new { animation: flash 1.5s ease-out; }
        @keyframes flash { from { background: rgba(11, 87, 208, .15); } to { background: transparent; } }
        @media (prefers-reduced-motion: reduce) { .new { animation: none; } .card { transition: none; } }
        @media (max-width: 30rem) {
          main { padding: .75rem; }
          header { padding: .5rem .75rem; }
          .row select { flex: 1 1 8rem; }
          /* One row of screens that scrolls sideways, so the screen itself starts near the top. */
          nav { flex-wrap: nowrap; overflow-x: auto; width: 100%; padding-bottom: .25rem; }
          nav button { flex: 0 0 auto; }
        }
        """
}
