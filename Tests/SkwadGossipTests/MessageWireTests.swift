import Foundation
import Testing
import SkwadModel
@testable import SkwadGossip

/// Every wire field is checked in one place before a handler sees it (MessageWire.swift,
/// PROTOCOL §9 "Checked on arrival").
@Suite struct MessageWireTests {
    static func peer(_ a: String, _ c: String) -> Skwad_Gossip_V1_Peer {
        var p = Skwad_Gossip_V1_Peer(); p.address = a; p.cell = c; return p
    }

    @Test func oversizedListsAreCutAndBadEntriesSkipped() throws {
        var m = WireMessage(); var s = Skwad_Gossip_V1_Shuffle()
        s.peers = (0..<1_000).map { Self.peer("10.0.0.\($0 % 250):\(1000 + $0)", $0 % 2 == 0 ? "u4pruyd" : "not a cell!") }
        s.peers[0].address = ""
        m.shuffle = s
        guard case .shuffle(let named)? = Message(wire: m) else { Issue.record("not decoded"); return }
        #expect(named.count == Message.maxPeersListed - 1, "64 looked at, the one without an address skipped")
        #expect(named.allSatisfy { $0.cell == nil || $0.cell == "u4pruyd" }, "a cell that is not a geohash is unknown")
        var ih = WireMessage(); var h = Skwad_Gossip_V1_IHave(); h.ids = (0..<5_000).map { _ in Data(count: 8) }; ih.ihave = h
        guard case .ihave(let ids)? = Message(wire: ih) else { Issue.record("not decoded"); return }
        #expect(ids.count == Message.maxListed)
    }

    @Test func messagesMissingWhatTheyNeedAreDroppedWhole() {
        var fj = WireMessage(); fj.forwardJoin = Skwad_Gossip_V1_ForwardJoin(); fj.forwardJoin.ttl = .max
        #expect(Message(wire: fj) == nil, "a walk without a joiner")
        var pr = WireMessage(); pr.pingReq = Skwad_Gossip_V1_PingReq()
        #expect(Message(wire: pr) == nil, "a PingReq without a target")
        var long = WireMessage(); long.pingReq.target = String(repeating: "9", count: 65)
        #expect(Message(wire: long) == nil, "an address longer than 64 bytes")
        var rc = WireMessage(); rc.reconcile.pack = Data(count: 31)
        #expect(Message(wire: rc) == nil, "a pack id of the wrong size")
        var many = WireMessage(); many.reconcile.pack = Data(count: 32)
        var r = Skwad_Gossip_V1_Range(); r.skip = true
        many.reconcile.ranges = Array(repeating: r, count: Message.maxRanges + 1)
        #expect(Message(wire: many) == nil, "more ranges than any honest step sends")
        many.reconcile.ranges = Array(repeating: r, count: Message.maxRanges)
        #expect(Message(wire: many) != nil)
        #expect(Message(wire: WireMessage()) == nil, "an empty message")
    }

    @Test func aBatchOfReconciliationStepsHoldsTwoToSixteenPackSteps() throws {
        func step(_ k: Int) -> Skwad_Gossip_V1_Reconcile {
            var r = Skwad_Gossip_V1_Reconcile(); r.pack = Data(repeating: UInt8(truncatingIfNeeded: k), count: 32); r.initiator = true;
            return r
        }
        func batch(_ steps: [Skwad_Gossip_V1_Reconcile]) -> WireMessage {
            var m = WireMessage(); var b = Skwad_Gossip_V1_Reconciles(); b.rounds = steps; m.reconciles = b; return m
        }
        for n in [0, 1, Message.maxBatched + 1, 1_000] {
            #expect(Message(wire: batch((0..<n).map(step))) == nil, "\(n) steps")
        }
        guard case .reconciles(let rounds)? = Message(wire: batch((0..<Message.maxBatched).map(step))) else {
            Issue.record("16 steps not decoded"); return
        }
        #expect(rounds.count == Message.maxBatched && rounds.allSatisfy { $0.initiator && $0.pack != nil })
        var directory = Skwad_Gossip_V1_Reconcile(); directory.directory = true
        #expect(Message(wire: batch([step(1), directory])) == nil, "a directory step goes alone")
        var bad = step(2); bad.pack = Data(count: 31)
        #expect(Message(wire: batch([step(1), bad])) == nil, "one bad step drops the batch")
    }

    @Test func everyMessageSurvivesTheRoundTrip() throws {
        let info = NodeInfo(cell: "u4pruyd", subscriptions: [[1, 2, 3, 4, 5, 6, 7, 8]])
        let ref = PeerRef(address: PeerAddress("10.1.2.3:7400"), cell: "u4pru")
        let pack = try PackID(bytes: [UInt8](repeating: 7, count: 32))
        let all: [Message] = [
            .join(info), .forwardJoin(joiner: ref, ttl: 3),
            .neighbor(NeighborRequest(highPriority: true, info: info, origin: PeerAddress("10.0.0.9:1"), ttl: 2)),
            .neighborReply(accepted: true, info: info), .disconnect, .shuffle([ref]), .shuffleReply([ref, ref]),
            .ping(seq: 5, info: info), .ack(seq: 5, info: nil, notMember: true), .ack(seq: 6, info: info, notMember: false),
            .observed(PeerAddress("10.0.0.1:7400")), .introduce(peer: PeerAddress("10.0.0.2:7400"), padding: [0, 0, 0]),
            .pingReq(seq: 1, target: ref.address), .indirectAck(seq: 1, target: ref.address), .interest(info),
            .vicinity(VicinityExchange(info: info, peers: [ref], reply: false, target: "u4pr")),
            .ops(envelopes: [[1, 2, 3]], repair: true), .ihave([[1, 2, 3, 4, 5, 6, 7, 8]]), .want(ids: [[9]], graft: true), .prune,
            .stem(envelope: [4, 5]),
            .reconcile(
                ReconcileRound(
                    pack: pack, directory: false, initiator: true, lower: .zero,
                    ranges: [.init(upper: .infinity, mode: .skip)], asker: info)),
            .reconcile(ReconcileRound(pack: nil, directory: true, initiator: false, lower: .zero, ranges: [], asker: nil)),
            .reconciles([
                ReconcileRound(pack: pack, directory: false, initiator: false, lower: .zero, ranges: [], asker: nil),
                ReconcileRound(
                    pack: pack, directory: false, initiator: true, lower: .zero,
                    ranges: [.init(upper: .infinity, mode: .fingerprint([UInt8](repeating: 1, count: 16)))], asker: info)
            ]),
            .findPack(query: "campus")
        ]
        for m in all {
            let bytes: [UInt8] = try m.wire.serializedBytes()
            #expect(Message(wire: try WireMessage(serializedBytes: bytes)) == m, "\(m.kind)")
        }
    }

    /// The hand-written encodings (MessageEncoding.swift) are SwiftProtobuf's bytes exactly:
    /// empty lists and elements, one-byte and longer length prefixes, both flag values.
    @Test func handEncodedMessagesAreTheProtobufBytes() throws {
        var r = SplitMix(seed: 9)
        func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(truncatingIfNeeded: r.next()) } }
        var all: [Message] = [
            .prune, .ops(envelopes: [], repair: false), .ops(envelopes: [], repair: true), .ihave([]),
            .want(ids: [], graft: false), .ihave([[]]), .want(ids: [[], [1]], graft: true)
        ]
        for n in [1, 2, 8, 30, 127, 128, 300] {
            all.append(.ihave((0..<n).map { _ in bytes(8) }))
            all.append(.want(ids: (0..<n).map { _ in bytes(32) }, graft: n % 2 == 0))
            all.append(.want(ids: (0..<n).map { _ in bytes(8) }, graft: n % 2 == 1))
            all.append(.ops(envelopes: (0..<min(n, 40)).map { i in bytes(i * 37 % 400) }, repair: n % 2 == 0))
        }
        all.append(.ops(envelopes: [bytes(127), bytes(128), bytes(16_383), bytes(16_384)], repair: false))
        for m in all {
            let want: [UInt8] = try m.wire.serializedBytes()
            #expect(m.handEncoded == want, "\(m.kind)")
        }
        #expect(Message.ping(seq: 1, info: nil).handEncoded == nil)
    }

    /// A bundle written by hand (MessageBundle.swift) is SwiftProtobuf's bytes exactly, and its
    /// size is known before it is written.
    @Test func aHandWrittenBundleIsTheProtobufBytes() throws {
        var r = SplitMix(seed: 10)
        func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(truncatingIfNeeded: r.next()) } }
        for parts in [[[], [1]], [bytes(127), bytes(128)], [bytes(5), bytes(300), [], bytes(16_384)]] {
            let content = parts.reduce(0) { $0 + MessageBundle.entrySize($1.count) }
            var w = WireMessage()
            var b = Skwad_Gossip_V1_Bundle()
            b.messages = parts.map { Data($0) }
            w.bundle = b
            let want: [UInt8] = try w.serializedBytes()
            #expect(MessageBundle.encode(parts, content: content) == want)
            #expect(MessageBundle.size(content: content) == want.count)
        }
    }
}
