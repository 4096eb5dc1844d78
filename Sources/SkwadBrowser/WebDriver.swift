import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A chromedriver process (Debian `chromium-driver`) on 127.0.0.1, on a port the OS picks:
/// started with `--port=0`, it prints the port it bound on its first lines, which are read
/// (at most 60 s). Sessions it opens are headless Chromium (Debian `chromium`) driven over W3C
/// WebDriver (HTTP and JSON), each with a profile directory under one of this driver's own.
/// The driver runs under a small shell in a process group of its own that holds it and the
/// browsers it starts; the shell SIGKILLs the whole group when its standard input closes,
/// which happens however this process ends (a crash or SIGKILL included: the pipe's end here
/// is close-on-exec, so no other child holds it open). `close` ends every session, then the
/// group; `kill` (also from `deinit`) ends the group at once; both remove the profiles.
public final class ChromeDriver: @unchecked Sendable {
    public static let driverPath = "/usr/bin/chromedriver"
    public static let browserPath = "/usr/bin/chromium"
    let process = Process()
    private let input: FileHandle
    public let port: Int
    /// The process group of the shell, the driver and its browsers.
    let group: Int32
    let base: String
    private let lock = NSLock()
    private var sessions: [WebDriverSession] = []
    private var made = 0
    private var closed = false

    /// Why a browser cannot be driven here, in one line (nil: it can).
    public static var missing: String? {
        for (path, package) in [(browserPath, "chromium"), (driverPath, "chromium-driver")]
        where !FileManager.default.isExecutableFile(atPath: path) {
            return "\(path) is not installed (scripts/setup.sh installs \(package) as root)"
        }
        return nil
    }

    public init(seconds: Double = 60) throws {
        if let why = Self.missing { throw RawError(why) }
        base = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-webdriver-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        // `setsid -w` runs the shell as the leader of a new process group and waits for it; the
        // shell prints its group, and the driver and its browsers inherit the group. SIGKILL,
        // as a SIGTERM may be ignored (a parent that ignores it passes that on). Only local
        // connections are taken (chromedriver's default allow-list is loopback).
        let script = "echo \"group $$\"; \"$0\" --port=0 & cat >/dev/null; kill -KILL 0"
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["-w", "/bin/sh", "-c", script, Self.driverPath]
        let out = Pipe(), stdin = Pipe()
        for end in [out.fileHandleForReading, stdin.fileHandleForWriting] { _ = fcntl(end.fileDescriptor, F_SETFD, FD_CLOEXEC) }
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = stdin
        input = stdin.fileHandleForWriting
        try process.run()
        // The port, from "ChromeDriver was started successfully on port N." A reader thread
        // keeps draining the pipe after it (a full pipe would block the driver).
        let found = PortLine()
        let fd = out.fileHandleForReading.fileDescriptor
        Thread.detachNewThread {
            var line = [UInt8](), byte: UInt8 = 0
            while Glibc.read(fd, &byte, 1) == 1 {
                guard !found.done else { continue }
                if byte != 10 {
                    if line.count < 4096 { line.append(byte) }
                    continue
                }
                found.offer(String(decoding: line, as: UTF8.self))
                line.removeAll()
            }
            found.finish()
        }
        let deadline = Date().addingTimeInterval(seconds)
        while !found.done && Date() < deadline && process.isRunning { Thread.sleep(forTimeInterval: 0.02) }
        group = found.group ?? 0
        guard let port = found.port else {
            Self.endGroup(process, input, group: group)
            Self.removeProfile(base)
            throw RawError("chromedriver gave no port within \(Int(seconds)) s")
        }
        self.port = port
    }

    /// Starts a driver on a thread of its own (the wait for its port blocks).
    public static func start(seconds: Double = 60) async throws -> ChromeDriver {
        try await withCheckedThrowingContinuation { c in
            Thread.detachNewThread { c.resume(with: Result { try ChromeDriver(seconds: seconds) }) }
        }
    }

    deinit { kill() }

    /// A new browser: headless Chromium with a fresh profile, its page `width` × `height` CSS
    /// pixels (with `touch`, a phone's: touch events and a mobile viewport).
    public func session(width: Int = 375, height: Int = 812, touch: Bool = false) async throws -> WebDriverSession {
        let profile: String = lock.withLock {
            made += 1
            return base + "/profile\(made)"
        }
        var options: [String: Any] = [
            "binary": Self.browserPath,
            "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage",
                "--window-size=\(width),\(height)", "--user-data-dir=\(profile)"
            ]
        ]
        options["mobileEmulation"] = [
            "deviceMetrics": ["width": width, "height": height, "pixelRatio": 1, "touch": touch, "mobile": touch]
        ]
        let caps: [String: Any] = ["capabilities": ["alwaysMatch": ["browserName": "chrome", "goog:chromeOptions": options]]]
        let value = try await WebDriverSession.call(RawClient(port: port), "POST", "/session", caps, seconds: 90)
        guard let id = (value as? [String: Any])?["sessionId"] as? String else { throw RawError("chromedriver made no session") }
        let s = WebDriverSession(port: port, id: id)
        let keep: Bool = lock.withLock {
            if !closed { sessions.append(s) }
            return !closed
        }
        if !keep {
            await s.quit()
            throw RawError("chromedriver was closed")
        }
        return s
    }

    /// Ends every session (each quits its browser and removes its profile), then the driver.
    public func close() async {
        let open: [WebDriverSession] = lock.withLock {
            defer {
                sessions.removeAll()
                closed = true
            }
            return sessions
        }
        for s in open { await s.quit() }
        await withCheckedContinuation { c in
            Thread.detachNewThread { [self] in
                kill(); c.resume()
            }
        }
    }

    /// Ends the driver's process group (the driver and the browsers it started) and removes
    /// the profiles. Blocks (at most about 10 s); idempotent.
    public func kill() {
        lock.withLock { closed = true }
        Self.endGroup(process, input, group: group)
        Self.removeProfile(base)
    }

    /// Closes the shell's input (it SIGKILLs its group), waits up to 2 s for the group to be
    /// gone, then SIGKILLs it from here (and the shell's parent, if it is still there).
    static func endGroup(_ p: Process, _ input: FileHandle, group: Int32) {
        try? input.close()
        let deadline = Date().addingTimeInterval(2)
        while group > 1 && Glibc.kill(-group, 0) == 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if group > 1 && Glibc.kill(-group, 0) == 0 { Glibc.kill(-group, SIGKILL) }
        let hard = Date().addingTimeInterval(5)
        while p.isRunning && Date() < hard { Thread.sleep(forTimeInterval: 0.02) }
        if p.isRunning { Glibc.kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
    }

    /// Removes a profile directory: Chromium's helpers may still write in it for a moment after
    /// the browser exits, so it is tried again every 100 ms, at most 50 times.
    static func removeProfile(_ dir: String) {
        for _ in 0..<50 {
            try? FileManager.default.removeItem(atPath: dir)
            if !FileManager.default.fileExists(atPath: dir) { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

}

/// The port line chromedriver prints, as the reader thread finds it.
private final class PortLine: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Int?
    private var leader: Int32?
    private var finished = false
    var port: Int? { lock.withLock { value } }
    var group: Int32? { lock.withLock { leader } }
    var done: Bool { lock.withLock { value != nil || finished } }
    func finish() { lock.withLock { finished = true } }
    func offer(_ line: String) {
        if line.hasPrefix("group "), let g = Int32(line.dropFirst(6)), g > 1 {
            lock.withLock { leader = g }
            return
        }
        guard let range = line.range(of: "started successfully on port ") else { return }
        let digits = line[range.upperBound...].prefix { $0.isNumber }
        guard let p = Int(digits), p > 0, p < 65536 else { return }
        lock.withLock { value = p }
    }
}

/// An element a session found (its WebDriver reference).
public struct WebElement: Sendable {
    public let id: String
    static let key = "element-6066-11e4-a52e-4f735466cecf"
    var json: [String: Any] { [Self.key: id] }
}

/// One browser, driven over W3C WebDriver: navigate, find, click, type, run script (a promise
/// it returns is awaited), input actions (touch, keys), screenshots, the window's size. Every
/// call is bounded (30 s unless given).
public final class WebDriverSession: @unchecked Sendable {
    let client: RawClient
    public let id: String

    init(port: Int, id: String) {
        client = RawClient(port: port)
        self.id = id
    }

    /// Sends one WebDriver command and returns its `value`, or throws its error.
    static func call(_ client: RawClient, _ method: String, _ path: String, _ body: [String: Any]?, seconds: Double) async throws -> Any? {
        let bytes = try body.map { Array(try JSONSerialization.data(withJSONObject: $0)) } ?? []
        let r = try await client.request(method, path, body: bytes, seconds: seconds)
        let value = r.json?["value"]
        if r.status != 200 {
            let e = value as? [String: Any]
            throw RawError("\(method) \(path): \(r.status) \(e?["error"] ?? "") \(String(describing: e?["message"] ?? r.text).prefix(300))")
        }
        return value is NSNull ? nil : value
    }

    @discardableResult
    func call(_ method: String, _ path: String, _ body: [String: Any]? = [:], seconds: Double = 30) async throws -> Any? {
        try await Self.call(client, method, "/session/\(id)" + path, method == "GET" || method == "DELETE" ? nil : body, seconds: seconds)
    }

    public func navigate(_ url: String) async throws { try await call("POST", "/url", ["url": url], seconds: 60) }

    /// The first element matching the CSS `selector` (nil: none).
    public func find(_ selector: String) async throws -> WebElement? {
        do {
            let v = try await call("POST", "/element", ["using": "css selector", "value": selector])
            return ((v as? [String: Any])?[WebElement.key] as? String).map(WebElement.init)
        } catch let e as RawError where e.description.contains("no such element") {
            return nil
        }
    }

    public func click(_ e: WebElement) async throws { try await call("POST", "/element/\(e.id)/click") }

    public func sendKeys(_ e: WebElement, _ text: String) async throws { try await call("POST", "/element/\(e.id)/value", ["text": text]) }

    /// Runs `script` as a function body (`arguments` are `args`) and returns its result.
    @discardableResult
    public func execute(_ script: String, _ args: [Any] = []) async throws -> Any? {
        try await call("POST", "/execute/sync", ["script": script, "args": args], seconds: 60)
    }

    /// The value of the JavaScript expression `js` (a promise awaited) as a string: "" for
    /// none or an error, anything else as JavaScript's `String` prints it.
    public func evaluate(_ js: String) async -> String {
        let script = "return Promise.resolve((\n\(js)\n)).then(v => v === undefined || v === null ? '' : String(v));"
        return (try? await execute(script)) as? String ?? ""
    }

    /// Polls `js` every 50 ms until it returns `expected` (at most `seconds`); returns the last value.
    public func wait(for js: String, toBe expected: String, seconds: Double = 30) async -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var last = ""
        while Date() < deadline {
            last = await evaluate(js)
            if last == expected { return last }
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        return last
    }

    /// Input actions (W3C "perform actions"), then every input released.
    public func perform(_ sources: [[String: Any]]) async throws {
        try await call("POST", "/actions", ["actions": sources])
        try await call("DELETE", "/actions")
    }

    /// A finger put down at `from`, moved in `steps` to `to` (viewport CSS pixels), lifted.
    public func swipe(from: (x: Double, y: Double), to: (x: Double, y: Double), steps: Int = 8) async throws {
        var acts: [[String: Any]] = [
            ["type": "pointerMove", "duration": 0, "origin": "viewport", "x": Int(from.x), "y": Int(from.y)],
            ["type": "pointerDown", "button": 0]
        ]
        for i in 1...steps {
            let t = Double(i) / Double(steps)
            let x = Int(from.x + (to.x - from.x) * t), y = Int(from.y + (to.y - from.y) * t)
            acts.append(["type": "pointerMove", "duration": 16, "origin": "viewport", "x": x, "y": y])
        }
        acts.append(["type": "pointerUp", "button": 0])
        try await perform([["type": "pointer", "id": "finger", "parameters": ["pointerType": "touch"], "actions": acts]])
    }

    /// A finger put down on the centre of `e` and lifted.
    public func tap(_ e: WebElement) async throws {
        let acts: [[String: Any]] = [
            ["type": "pointerMove", "duration": 0, "origin": e.json, "x": 0, "y": 0],
            ["type": "pointerDown", "button": 0], ["type": "pause", "duration": 50], ["type": "pointerUp", "button": 0]
        ]
        try await perform([["type": "pointer", "id": "finger", "parameters": ["pointerType": "touch"], "actions": acts]])
    }

    /// A key pressed and released: `key` is a character or one of WebDriver's key codes
    /// (`WebDriverSession.arrowLeft`, …).
    public func press(_ key: String) async throws {
        let acts: [[String: Any]] = [["type": "keyDown", "value": key], ["type": "keyUp", "value": key]]
        try await perform([["type": "key", "id": "keyboard", "actions": acts]])
    }

    public static let arrowLeft = "\u{E012}", arrowUp = "\u{E013}", arrowRight = "\u{E014}", arrowDown = "\u{E015}"

    /// The centre of the first element matching `selector`, scrolled into view, in viewport
    /// CSS pixels.
    public func centre(of selector: String) async throws -> (x: Double, y: Double) {
        let js =
            "(function(){const e=document.querySelector(\(Self.quoted(selector)));if(!e)return '';"
            + "e.scrollIntoView({block:'center'});const r=e.getBoundingClientRect();return (r.left+r.width/2)+','+(r.top+r.height/2);})()"
        let parts = await evaluate(js).split(separator: ",").compactMap { Double($0) }
        guard parts.count == 2 else { throw RawError("no element \(selector)") }
        return (parts[0], parts[1])
    }

    /// Grants the page's origin a permission (W3C Permissions: "geolocation", …).
    public func grant(_ permission: String) async throws {
        try await call("POST", "/permissions", ["descriptor": ["name": permission], "state": "granted"])
    }

    /// The place the browser's geolocation answers with (chromedriver's own command).
    public func setLocation(latitude: Double, longitude: Double) async throws {
        try await call("POST", "/location", ["location": ["latitude": latitude, "longitude": longitude, "altitude": 0]])
    }

    /// The page as a PNG (the viewport).
    public func screenshot() async throws -> Data {
        guard let b64 = try await call("GET", "/screenshot", nil, seconds: 60) as? String, let data = Data(base64Encoded: b64) else {
            throw RawError("no screenshot")
        }
        return data
    }

    /// Sets the window's outer size.
    public func setWindowSize(width: Int, height: Int) async throws {
        try await call("POST", "/window/rect", ["width": width, "height": height])
    }

    /// Ends the session: the browser quits and its profile is removed.
    public func quit() async { _ = try? await Self.call(client, "DELETE", "/session/\(id)", nil, seconds: 30) }

    /// `s` as a JavaScript string literal.
    public static func quoted(_ s: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: [s]), as: UTF8.self).dropFirst().dropLast().description
    }
}
