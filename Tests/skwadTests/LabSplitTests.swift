import Foundation
import Testing

/// The node binary carries no attack tooling: the simulator, the benchmarks, hostile peers
/// and wire forging live in `skwad-lab`, which `skwad simulate` and `skwad bench` run from
/// beside it (docs/ARCHITECTURE.md).
@Suite struct LabSplitTests {
    /// The objects SwiftPM linked into `skwad`: none of the lab's modules.
    @Test func theNodeBinaryLinksNoLabModule() throws {
        let bin = try #require(BinaryTests.binary)
        let list = bin.deletingLastPathComponent().appendingPathComponent("skwad.product/Objects.LinkFileList")
        let objects = try String(contentsOf: list, encoding: .utf8).split(separator: "\n")
        #expect(objects.contains { $0.contains("SkwadNode.build") })
        for lab in ["SkwadLab.build", "SkwadSim.build", "SkwadBench.build", "SkwadTestKit.build", "SkwadBrowser.build"] {
            #expect(!objects.contains { $0.contains(lab) }, "\(lab) is linked into skwad")
        }
    }

    /// `skwad bench` hands over to `skwad-lab` (its help names it); `skwad` alone in a directory
    /// says in one line what to build, and exits 2.
    @Test func benchRunsTheLabAndSaysSoWhenItIsMissing() throws {
        let help = try BinaryTests.run(["bench", "--help"], input: "", seconds: 60)
        #expect(help.status == 0)
        #expect(help.out.contains("skwad-lab bench") && help.out.contains("procs"), "\(help.out)")
        let bin = try #require(BinaryTests.binary)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-alone-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let alone = dir.appendingPathComponent("skwad")
        // A hard link (a copy on another file system): /proc/self/exe names it, not the original.
        do { try FileManager.default.linkItem(at: bin, to: alone) } catch { try FileManager.default.copyItem(at: bin, to: alone) }
        let p = Process()
        p.executableURL = alone
        p.arguments = ["bench", "ingest"]
        let err = Pipe()
        p.standardError = err; p.standardOutput = Pipe()
        try p.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 2)
        #expect(text.contains("skwad-lab") && text.split(separator: "\n").count == 1, "\(text)")
    }
}
