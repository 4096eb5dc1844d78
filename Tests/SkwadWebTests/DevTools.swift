import Foundation
import Testing

/// A headless Chromium driven over its DevTools protocol: pages opened on given URLs, script
/// evaluated in them, touch and key input dispatched as a device would. The profile directory
/// is fresh and removed by `close`, which also ends the process; every wait is bounded.
final class Chromium: @unchecked Sendable {
    static let path = "/usr/bin/chromium"
    let process = Process()
    let dir: String
    let port: Int

    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Starts Chromium (one blank page, `width` × `height`) and waits for its DevTools port.
    init(width: Int = 375, height: Int = 812) async throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-chromium-\(UUID().uuidString)").path
        process.executableURL = URL(fileURLWithPath: Self.path)
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=\(dir)",
            "--remote-debugging-port=0", "--window-size=\(width),\(height)", "about:blank"
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Chromium writes the DevTools port it bound into the profile directory.
        var found: Int?
        let deadline = Date().addingTimeInterval(60)
        while found == nil && Date() < deadline && process.isRunning {
            found = (try? String(contentsOfFile: dir + "/DevToolsActivePort", encoding: .utf8))?
                .split(separator: "\n").first.flatMap { Int($0) }
            if found == nil { try? await Task.sleep(nanoseconds: 50_000_000) }
        }
        guard let found else {
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
            Self.removeProfile(dir)
            throw RawError("chromium gave no DevTools port within 60 s")
        }
        port = found
    }

    /// Ends the browser and removes its profile.
    func close() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        Self.removeProfile(dir)
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

    /// A page showing `url`: the first blank page for the first call, a new one after.
    func open(_ url: String, width: Int = 375, height: Int = 812, touch: Bool = false) async throws -> DevToolsPage {
        let devtools = RawClient(port: port, token: "")
        let list = try await devtools.request("GET", "/json/list")
        let pages = try #require(try JSONSerialization.jsonObject(with: list.body) as? [[String: Any]])
        var target = pages.first { $0["type"] as? String == "page" && $0["url"] as? String == "about:blank" }
        if target == nil {
            let made = try await devtools.request("PUT", "/json/new")
            target = try JSONSerialization.jsonObject(with: made.body) as? [String: Any]
        }
        let ws = try #require(target?["webSocketDebuggerUrl"] as? String, "no page target")
        let path = String(ws.drop { $0 != "/" }.dropFirst(2).drop { $0 != "/" })
        let (socket, upgraded) = try await devtools.webSocket(path, headers: [])
        let page = DevToolsPage(try #require(socket, "DevTools refused the socket: \(upgraded.status)"))
        _ = try await page.call(
            "Emulation.setDeviceMetricsOverride", ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": touch])
        if touch { _ = try await page.call("Emulation.setTouchEmulationEnabled", ["enabled": true, "maxTouchPoints": 1]) }
        _ = try await page.call("Page.navigate", ["url": url])
        return page
    }
}

/// One page's DevTools session (calls answered in order; events are skipped).
final class DevToolsPage: @unchecked Sendable {
    private let socket: RawConnection
    private var calls = 0

    init(_ socket: RawConnection) { self.socket = socket }

    /// Calls `method` and returns its `result` (at most 30 s).
    @discardableResult
    func call(_ method: String, _ params: [String: Any] = [:]) async throws -> [String: Any] {
        calls += 1
        let id = calls
        let message: [String: Any] = ["id": id, "method": method, "params": params]
        await socket.writeText(String(decoding: try JSONSerialization.data(withJSONObject: message), as: UTF8.self))
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, let frame = await socket.readFrame(seconds: deadline.timeIntervalSinceNow) {
            guard let reply = try? JSONSerialization.jsonObject(with: Data(frame.payload)) as? [String: Any], reply["id"] as? Int == id
            else { continue }
            if let error = reply["error"] as? [String: Any] { throw RawError("\(method): \(error["message"] ?? error)") }
            return reply["result"] as? [String: Any] ?? [:]
        }
        throw RawError("\(method): no answer within 30 s")
    }

    /// Evaluates `js` (awaiting a promise) and returns its value as a string ("" for none).
    func evaluate(_ js: String) async -> String {
        let r = try? await call("Runtime.evaluate", ["expression": js, "returnByValue": true, "awaitPromise": true])
        let value = (r?["result"] as? [String: Any])?["value"]
        if let s = value as? String { return s }
        if let v = value { return "\(v)" }
        return ""
    }

    /// Polls `js` every 50 ms until it returns `expected` (at most `seconds`); returns the last value.
    func wait(for js: String, toBe expected: String, seconds: Double = 30) async -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var last = ""
        while Date() < deadline {
            last = await evaluate(js)
            if last == expected { return last }
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        return last
    }

    /// The centre of the first element matching `selector`, in CSS pixels.
    func centre(of selector: String) async throws -> (x: Double, y: Double) {
        let js =
            "(function(){const e=document.querySelector(\(Self.quoted(selector)));if(!e)return '';"
            + "e.scrollIntoView({block:'center'});const r=e.getBoundingClientRect();return (r.left+r.width/2)+','+(r.top+r.height/2);})()"
        let parts = await evaluate(js).split(separator: ",").compactMap { Double($0) }
        guard parts.count == 2 else { throw RawError("no element \(selector)") }
        return (parts[0], parts[1])
    }

    /// A finger put down at `from`, moved in steps to `to`, lifted.
    func swipe(from: (x: Double, y: Double), to: (x: Double, y: Double), steps: Int = 8) async throws {
        try await call("Input.dispatchTouchEvent", ["type": "touchStart", "touchPoints": [["x": from.x, "y": from.y]]])
        for i in 1...steps {
            let t = Double(i) / Double(steps)
            let p = ["x": from.x + (to.x - from.x) * t, "y": from.y + (to.y - from.y) * t]
            try await call("Input.dispatchTouchEvent", ["type": "touchMove", "touchPoints": [p]])
        }
        try await call("Input.dispatchTouchEvent", ["type": "touchEnd", "touchPoints": [[String: Any]]()])
    }

    /// A tap (finger down and up) on the element matching `selector`, once it has stopped
    /// moving (a swipe just before may still be moving the page): two readings 50 ms apart
    /// that agree, at most 40 tries, then two frames drawn.
    func tap(_ selector: String) async throws {
        var c = try await centre(of: selector)
        for _ in 0..<40 {
            try? await Task.sleep(nanoseconds: 50_000_000)
            let again = try await centre(of: selector)
            if again == c { break }
            c = again
        }
        // Two frames drawn with that layout, so the compositor's hit test is not a frame behind it.
        _ = await evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r('drawn'))))")
        try await call("Input.dispatchTouchEvent", ["type": "touchStart", "touchPoints": [["x": c.x, "y": c.y]]])
        try await call("Input.dispatchTouchEvent", ["type": "touchEnd", "touchPoints": [[String: Any]]()])
    }

    /// A key pressed and released (`key` as `KeyboardEvent.key` names it, e.g. "ArrowRight").
    func press(_ key: String, code: Int) async throws {
        for type in ["rawKeyDown", "keyUp"] {
            try await call(
                "Input.dispatchKeyEvent",
                ["type": type, "key": key, "code": key, "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code])
        }
    }

    /// `s` as a JavaScript string literal.
    static func quoted(_ s: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: [s]), as: UTF8.self).dropFirst().dropLast().description
    }
}
