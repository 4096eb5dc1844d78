// libFuzzer target: an envelope into admission. The replica already holds a pack genesis
// (so posts, comments and votes into it reach the deeper checks) and a post. Built only
// with SKWAD_FUZZ=1 (scripts/fuzz.sh).
import Foundation
import SkwadModel
import SkwadReplica
import SkwadTestKit

let base: Replica = {
    var f = OpFactory(seed: 1)
    let u = f.user()
    let g = f.createPack(by: u, name: "fuzz")
    var r = Replica()
    _ = r.admit(g, nowMs: f.nowMs)
    _ = r.admit(f.post(by: u, in: g), nowMs: f.nowMs)
    return r
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAdmission(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var r = base
    _ = r.receive(Array(UnsafeBufferPointer(start: data, count: size)), nowMs: 1_790_000_000_500)
    return 0
}

/// `SKWAD_FUZZ_SEEDS=DIR` writes the seed corpus (real envelopes of several kinds) and exits.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzAdmissionInitialize(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    guard let dir = ProcessInfo.processInfo.environment["SKWAD_FUZZ_SEEDS"] else { return 0 }
    var f = OpFactory(seed: 1)
    let u = f.user(), v = f.user()
    let g = f.createPack(by: u, name: "fuzz")
    let p = f.post(by: u, in: g)
    let ops = [
        f.createPack(by: v, name: "other", tags: ["t"]), f.post(by: v, in: g, title: "t", body: "b"),
        f.comment(by: v, in: g, on: p), f.vote(by: v, in: g, on: p, value: 1), f.vote(by: u, in: g, on: p, value: -1)
    ]
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    for (i, op) in ops.enumerated() { FileManager.default.createFile(atPath: "\(dir)/seed-\(i)", contents: Data(op.envelope.serialized())) }
    exit(0)
}
