import Foundation
import Testing
import SkwadModel

/// Issue 29's contact codes with real processes on loopback: two nodes that know nothing of
/// each other link through `a`'s code, `b` checking `a`'s key; the code's pack is joined and
/// its posts read; the QR code `invite` draws reads back (zbarimg) as the code; a code naming
/// another key is refused.
@Suite(.serialized) struct ContactLocalnetTests {
    /// The QR code printed after the code line: its module rows, read back from the half blocks.
    static func qrLines(_ text: String, after code: String) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let at = lines.firstIndex(where: { $0.contains(code) }) else { return [] }
        return Array(lines[(at + 1)...].prefix { !$0.isEmpty && $0.allSatisfy { " █▀▄".contains($0) } })
    }

    /// The half-block lines as a PGM picture, each module 4×4 pixels (what zbarimg reads).
    static func pgm(_ lines: [String]) -> Data {
        let rows = lines.flatMap { line -> [[Bool]] in
            let cs = Array(line)
            return [cs.map { $0 == "█" || $0 == "▀" }, cs.map { $0 == "█" || $0 == "▄" }]
        }
        let scale = 4, w = (rows.map(\.count).max() ?? 0) * scale, h = rows.count * scale
        var d = Data("P5\n\(w) \(h)\n255\n".utf8)
        for row in rows {
            let line = row.flatMap { dark in [UInt8](repeating: dark ? 0 : 255, count: scale) }
            let padded = line + [UInt8](repeating: 255, count: w - line.count)
            for _ in 0..<scale { d.append(contentsOf: padded) }
        }
        return d
    }

    static func zbar(_ file: String) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["zbarimg", "--raw", "-q", file]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        p.waitUntilExit()
        return String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aContactCodeLinksTwoStrangersWithTheKeyCheckedAndItsQRCodeReadsBack() async throws {
        let net = try Localnet()
        defer { net.stop() }
        let aAddress = try await net.start("a", peers: [])
        try await net.start("b", peers: [])
        net["a"].send("create Quad --radius 1000")
        #expect(await net["a"].waitFor("created pack Quad"))
        net["a"].send(#"post Quad "Free pizza" "Gates 4th floor""#)
        #expect(await net["a"].waitFor("posted "))
        net["a"].send("invite Quad --qr")
        #expect(await net["a"].waitFor("contact code for this node and pack Quad"))
        try await Task.sleep(nanoseconds: 300_000_000)  // the QR lines follow the code line
        let code = try #require(net["a"].text.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("skn-") }.map(String.init))

        let qr = Self.qrLines(net["a"].text, after: code)
        #expect(qr.count >= 15, "\(qr.count) QR lines")
        let file = net.dir + "/qr.pgm"
        try Self.pgm(qr).write(to: URL(fileURLWithPath: file))
        #expect(try Self.zbar(file).lowercased() == code, "zbarimg (scripts/setup.sh installs zbar-tools) read the QR code")

        net["b"].send("connect \(code)")
        #expect(await net["b"].waitFor("connected to 127.0.0.1:", seconds: 15))
        #expect(net["b"].text.contains("it proved the code's key"))
        #expect(await net["b"].waitFor("joined Quad"))
        #expect(await net["b"].waitFor("Free pizza", poll: "feed Quad"))

        // A code with a's addresses and another key's fingerprint: refused, in one line.
        let real = try ContactCode(parsing: code)
        var forged = real
        forged.fingerprint = real.fingerprint.map { $0 ^ 0x5A }
        let mark = net["b"].text.count
        net["b"].send("connect \(forged.encoded())")
        #expect(await net["b"].waitFor("did not prove the code's key", after: mark, seconds: 15))
        #expect(!String(net["b"].text.dropFirst(mark)).contains("connected to"))

        // A bare address links with no key to check; nothing listening is one line.
        try await net.start("c", peers: [])
        net["c"].send("connect \(aAddress.split(separator: " ").first.map(String.init) ?? aAddress)")
        #expect(await net["c"].waitFor("linked to 127.0.0.1:", seconds: 15))
        net["c"].send("connect 127.0.0.1:1")
        #expect(await net["c"].waitFor("no answer from 127.0.0.1:1", seconds: 15))
    }
}
