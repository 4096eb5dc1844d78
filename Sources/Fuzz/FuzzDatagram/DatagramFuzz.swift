// libFuzzer target: datagrams into a GossipEngine that has an established session with the
// fuzzer's HostilePeer. Built only with SKWAD_FUZZ=1 (scripts/fuzz.sh), debug, so
// `@testable` reaches the engine's message type.
//
// Input: a sequence of chunks, each `[mode][len][bytes]`. Mode bit 0 clear: `bytes` is a
// plaintext `Message`, sealed with the session key (so it passes the AEAD) under the next
// counter or, with bit 1 set, under a counter taken from the chunk. Bit 0 set: `bytes`
// goes in raw as a datagram (any frame). The engine and replica start from the same
// linked state for every input; time advances 37 ms per chunk, with a tick every 8 chunks.
import Foundation
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

let t0: UInt64 = 1_790_000_000_000

struct Linked {
    var engine: GossipEngine
    var replica: Replica
    var peer: HostilePeer
}

let base: Linked = {
    var e = GossipEngine(seed: 42, secrets: .seeded)
    e.addressFilter = { $0.isDialable }
    e.selfAddress = PeerAddress("10.0.0.9:7400")
    var r = Replica()
    var p = HostilePeer(address: PeerAddress("10.0.0.1:7400"), seed: 7)
    _ = e.start(seeds: [], nowMs: t0)
    guard p.handshake(with: &e, nowMs: t0, replica: &r) else { fatalError("fuzz setup: handshake failed") }
    // Make the peer an active member so membership and dissemination paths are reachable.
    var join = WireMessage(); join.join = Skwad_Gossip_V1_Join()
    _ = p.send(try! join.serializedBytes(), to: &e, nowMs: t0, replica: &r)
    return Linked(engine: e, replica: r, peer: p)
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDatagram(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    var s = base
    var i = 0, n: UInt64 = 0
    while i + 2 <= input.count {
        let mode = input[i], len = Int(input[i + 1])
        i += 2
        let chunk = Array(input[i..<min(input.count, i + len)])
        i += len
        n += 1
        let now = t0 + n * 37
        if mode & 1 == 1 {
            _ = s.engine.receive(datagram: chunk, from: s.peer.address, nowMs: now, replica: &s.replica)
        } else if mode & 2 == 2, chunk.count >= 8 {
            let c = chunk.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let frame = s.peer.seal(Array(chunk.dropFirst(8)), counter: c)
            _ = s.engine.receive(datagram: frame, from: s.peer.address, nowMs: now, replica: &s.replica)
        } else {
            _ = s.peer.send(chunk, to: &s.engine, nowMs: now, replica: &s.replica)
        }
        if n % 8 == 0 { _ = s.engine.tick(nowMs: now, replica: &s.replica) }
    }
    return 0
}

/// `SKWAD_FUZZ_SEEDS=DIR` writes the seed corpus (one message of each common kind, sealed
/// mode, plus a raw HELLO, a forged DATA and a replay) into DIR and exits.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzDatagramInitialize(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    guard let dir = ProcessInfo.processInfo.environment["SKWAD_FUZZ_SEEDS"] else { return 0 }
    var f = OpFactory(seed: 3)
    let u = f.user()
    let g = f.createPack(by: u, name: "seed")
    let post = f.post(by: u, in: g)
    var msgs: [WireMessage] = []
    var m = WireMessage()
    m.ping = Skwad_Gossip_V1_Ping(); m.ping.seq = 5; msgs.append(m)
    m = WireMessage(); m.pingReq = Skwad_Gossip_V1_PingReq(); m.pingReq.seq = 1; m.pingReq.target = "10.0.0.3:7400"; msgs.append(m)
    m = WireMessage(); m.forwardJoin = Skwad_Gossip_V1_ForwardJoin(); m.forwardJoin.ttl = 3; m.forwardJoin.joiner.address = "10.0.0.4:7400";
    msgs.append(m)
    m = WireMessage(); m.shuffle = Skwad_Gossip_V1_Shuffle(); m.shuffle.ttl = 2
    var peer = Skwad_Gossip_V1_Peer(); peer.address = "10.0.0.5:7400"; peer.cell = "dr3u"; m.shuffle.peers = [peer]; msgs.append(m)
    m = WireMessage(); m.neighbor = Skwad_Gossip_V1_Neighbor(); m.neighbor.highPriority = true; msgs.append(m)
    m = WireMessage(); m.vicinity = Skwad_Gossip_V1_Vicinity(); m.vicinity.peers = [peer]; msgs.append(m)
    m = WireMessage(); m.ops = Skwad_Gossip_V1_Ops(); m.ops.envelopes = [Data(g.envelope.serialized()), Data(post.envelope.serialized())];
    msgs.append(m)
    m = WireMessage(); m.ihave = Skwad_Gossip_V1_IHave(); m.ihave.ids = [Data(post.id.bytes)]; msgs.append(m)
    m = WireMessage(); m.want = Skwad_Gossip_V1_Want(); m.want.ids = [Data(post.id.bytes)]; msgs.append(m)
    m = WireMessage(); m.disconnect = Skwad_Gossip_V1_Disconnect(); msgs.append(m)
    var seeds: [[UInt8]] = []
    for msg in msgs {
        guard let pt = try? msg.serializedBytes() as [UInt8], pt.count < 256 else { continue }
        seeds.append([0, UInt8(pt.count)] + pt)
    }
    let hello = base.peer.hello()
    seeds.append([1, UInt8(hello.count)] + hello)
    seeds.append([1, 60] + HostilePeer.forgedData(counter: .max - 3, payload: [UInt8](repeating: 1, count: 52)))
    if let pt = try? msgs[0].serializedBytes() as [UInt8] {
        let ctr: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 9]
        seeds.append([2, UInt8(8 + pt.count)] + ctr + pt + [2, UInt8(8 + pt.count)] + ctr + pt)
    }
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    for (i, s) in seeds.enumerated() { FileManager.default.createFile(atPath: "\(dir)/seed-\(i)", contents: Data(s)) }
    exit(0)
}
