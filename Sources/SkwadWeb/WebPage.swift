import Hummingbird

/// The page: HTML, CSS and plain JavaScript compiled into the binary, served at `/`,
/// `/app.css` and `/app.js`. Nothing in it is secret (the token stays in the URL's `#`), so
/// these need no token; the `Host` check and the security headers still apply.
enum WebPage {
    static func addRoutes(to router: Router<some RequestContext>) {
        router.get("/") { _, _ in asset(html, "text/html; charset=utf-8") }
        router.get("/app.css") { _, _ in asset(css, "text/css; charset=utf-8") }
        router.get("/app.js") { _, _ in asset(script, "text/javascript; charset=utf-8") }
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
        </head>
        <body>
        <header>
          <h1>Skwad</h1>
          <nav aria-label="Screens">
            <button type="button" data-screen="feed" aria-current="page">Feed</button>
            <button type="button" data-screen="packs">Packs</button>
            <button type="button" data-screen="compose">Post</button>
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
          </section>
          <section id="screen-compose" aria-labelledby="compose-title" hidden>
            <h2 id="compose-title">New post</h2>
            <form id="compose-form" class="stack">
              <label for="compose-pack">Pack</label>
              <select id="compose-pack" required></select>
              <label for="compose-title-input">Title</label>
              <input id="compose-title-input" maxlength="200" required>
              <label for="compose-body">Body</label>
              <textarea id="compose-body" rows="5"></textarea>
              <button type="submit">Post</button>
            </form>
          </section>
          <section id="screen-post" aria-labelledby="post-title" hidden>
            <h2 id="post-title"></h2>
            <p id="post-meta" class="meta"></p>
            <p id="post-body" class="body"></p>
            <div class="row" id="post-votes"></div>
            <h3>Comments</h3>
            <ol id="comments" class="comments"></ol>
            <form id="comment-form" class="stack">
              <label for="comment-text">Your comment</label>
              <textarea id="comment-text" rows="3" required></textarea>
              <button type="submit">Comment</button>
            </form>
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
        body { margin: 0; font: 16px/1.5 system-ui, sans-serif; background: var(--bg); color: var(--fg); }
        header { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1rem; padding: .5rem 1rem;
          border-bottom: 1px solid var(--line); }
        h1 { font-size: 1.25rem; margin: 0; }
        nav { display: flex; gap: .5rem; }
        main { max-width: 48rem; margin: 0 auto; padding: 1rem; }
        button, input, select, textarea { font: inherit; color: inherit; background: var(--bg);
          border: 1px solid var(--line); border-radius: 4px; padding: .4rem .6rem; min-height: 2.5rem; }
        button { cursor: pointer; }
        button[aria-current="page"] { border-color: var(--accent); color: var(--accent); font-weight: 600; }
        :focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
        .row { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem; }
        .stack { display: flex; flex-direction: column; gap: .35rem; }
        .stack button { align-self: flex-start; }
        ol.posts, ol.packs, ol.comments { list-style: none; padding: 0; margin: 0; }
        ol.posts > li, ol.packs > li, ol.comments > li { border-bottom: 1px solid var(--line); padding: .6rem 0; }
        .meta, #live { color: var(--muted); font-size: .875rem; margin: 0; }
        .body { white-space: pre-wrap; overflow-wrap: anywhere; }
        .title { font-weight: 600; overflow-wrap: anywhere; }
        .linkish { border: none; padding: 0; min-height: auto; color: var(--accent); text-align: left; text-decoration: underline; }
        #error { color: var(--bad); font-weight: 600; }
        .new { animation: flash 1.5s ease-out; }
        @keyframes flash { from { background: rgba(11, 87, 208, .15); } to { background: transparent; } }
        @media (prefers-reduced-motion: reduce) { .new { animation: none; } }
        @media (max-width: 30rem) {
          main { padding: .75rem; }
          header { padding: .5rem .75rem; }
          .row select { flex: 1 1 8rem; }
        }
        """
}
