import Foundation
import Testing

/// `skwad identity export` / `import` (PROTOCOL §2, "Identity transfer"), as a user runs them.
@Suite struct IdentityBinaryTests {
    static func key(_ dir: String) -> Data? { FileManager.default.contents(atPath: dir + "/master.key") }

    @Test func anExportedIdentityImportsOnAnotherDeviceAndNothingElseOverwritesIt() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-id-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let laptop = root + "/laptop", phone = root + "/phone", other = root + "/other"
        for dir in [laptop, other] { #expect(try BinaryTests.run(["--data", dir, "--offline"], input: "whoami\n").status == 0) }
        let original = try #require(Self.key(laptop))

        let none = try BinaryTests.run(["identity", "export", "--data", root + "/empty"], input: "correct horse\n")
        #expect(none.status == 2 && none.err.hasPrefix("skwad: ") && none.err.contains("holds no identity yet"))
        let short = try BinaryTests.run(["identity", "export", "--data", laptop], input: "short\n")
        #expect(short.status == 2 && short.err.contains("at least 8 characters"))

        let exported = try BinaryTests.run(["identity", "export", "--data", laptop], input: "correct horse\n")
        #expect(exported.status == 0)
        let sealed = exported.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(sealed.hasPrefix("skwad-identity:") && !sealed.contains("\n"))

        // A wrong passphrase, a damaged text: one line each, nothing written.
        let wrong = try BinaryTests.run(["identity", "import", sealed, "--data", phone], input: "correct horsE\n")
        #expect(wrong.status == 2 && wrong.err == "skwad: wrong passphrase, or the sealed identity is damaged\n")
        var damaged = Array(sealed)
        damaged[40] = damaged[40] == "A" ? "B" : "A"
        let bad = try BinaryTests.run(["identity", "import", String(damaged), "--data", phone], input: "correct horse\n")
        #expect(bad.status == 2 && bad.err.split(separator: "\n").count == 1)
        #expect(Self.key(phone) == nil)

        // The right one installs the same key; again, nothing changes.
        let ok = try BinaryTests.run(["identity", "import", sealed, "--data", phone], input: "correct horse\n")
        #expect(ok.status == 0 && ok.out.hasPrefix("installed"))
        #expect(Self.key(phone) == original)
        let again = try BinaryTests.run(["identity", "import", sealed, "--data", phone], input: "correct horse\n")
        #expect(again.status == 0 && again.out.hasPrefix("unchanged"))

        // Another identity is not overwritten without --replace; with it, it is kept aside.
        let otherKey = try #require(Self.key(other))
        let refused = try BinaryTests.run(["identity", "import", sealed, "--data", other], input: "correct horse\n")
        #expect(refused.status == 2 && refused.err.contains("already holds another identity") && Self.key(other) == otherKey)
        let replaced = try BinaryTests.run(["identity", "import", sealed, "--data", other, "--replace"], input: "correct horse\n")
        #expect(replaced.status == 0 && replaced.out.hasPrefix("replaced"))
        #expect(Self.key(other) == original)
        let kept = try FileManager.default.contentsOfDirectory(atPath: other).filter { $0.hasPrefix("master.key.replaced-") }
        #expect(kept.count == 1 && FileManager.default.contents(atPath: other + "/" + kept[0]) == otherKey)

        // From a file written by --out (mode 0600).
        let file = root + "/identity.txt"
        #expect(try BinaryTests.run(["identity", "export", "--data", laptop, "--out", file], input: "correct horse\n").status == 0)
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let fromFile = try BinaryTests.run(["identity", "import", file, "--data", root + "/tablet"], input: "correct horse\n")
        #expect(fromFile.status == 0 && Self.key(root + "/tablet") == original)
    }
}
