import Foundation
import Testing

@Suite struct BinaryConfigTests {
    /// `skwad config` prints the documented default; a copy of it, edited, runs a node.
    @Test func printedDefaultConfigRunsANode() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-bin-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let printed = try BinaryTests.run(["config"], input: "")
        #expect(printed.status == 0 && printed.out.contains("pow_bits = 16") && printed.out.contains("[limits]"))
        let cfg = dir + "/node.toml"
        let edited = printed.out.replacingOccurrences(of: "pow_bits = 16", with: "pow_bits = 4")
            .replacingOccurrences(of: "# data_dir = \"~/.skwad\"", with: "data_dir = \"data\"")
        try edited.write(toFile: cfg, atomically: true, encoding: .utf8)
        #expect(try BinaryTests.run(["config", "--check", cfg], input: "").out == "ok\n")

        let r = try BinaryTests.run(
            ["--config", cfg, "--location", "40.4433,-79.9436", "--json", "--offline"], input: "whoami\ncreate Q --radius 500\n")
        #expect(r.status == 0)
        let objects = try r.out.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.count == 2)
        #expect(objects[0]?["dataDir"] as? String == dir + "/data")  // relative to the config file
        #expect(objects[0]?["location"] as? String == "40.4433,-79.9436")
        #expect(((objects[1]?["pack"] as? [String: Any])?["radius"] as? Double) == 500)
        #expect(FileManager.default.fileExists(atPath: dir + "/data/skwad.sqlite"))

        try "pow_bits = 99\n".write(toFile: cfg, atomically: true, encoding: .utf8)
        let bad = try BinaryTests.run(["config", "--check", cfg], input: "")
        #expect(bad.status != 0 && bad.err.hasPrefix("skwad: config: key 'pow_bits' (line 1): expected an integer 0...28"))
    }
}
