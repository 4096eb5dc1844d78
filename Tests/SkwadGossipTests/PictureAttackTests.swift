import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// Pictures under attack (SECURITY.md "Pictures", PROTOCOL §10b), by a `HostilePeer` through
/// a real session into a real engine: wrong hashes, unrequested blocks, a block flood, a
/// 10^6-chunk manifest, oversized and malformed blocks and images, a peer outside a locked
/// fence and a stranger asking for blocks.
@Suite struct PictureAttackTests {
    static let t0: UInt64 = 1_790_000_000_000
    static let here = try! GeoPoint(lat: 40.4433, lon: -79.9436)
    static let inside = Geohash.encode(here, precision: 7)
    static let outside = Geohash.encode(try! GeoPoint(lat: 41.5, lon: -79.9436), precision: 7)

    /// A victim engine at `here` holding a pack fenced around it (locked or not) and a post
    /// with a picture; a hostile peer that joined it from `cell` and reconciled (proven).
    struct Setup {
        var e: GossipEngine
        var r: Replica
        var peer: HostilePeer
        var f: OpFactory
        let g: SignedOp
        let post: SignedOp
        let ref: PictureRef
        let blocks: [[UInt8]]

        init(locked: Bool = false, cell: String = PictureAttackTests.inside, seed: UInt64 = 28, size: (Int, Int) = (60, 50)) {
            f = OpFactory(seed: seed, nowMs: PictureAttackTests.t0, floors: false)
            let u = f.user()
            g = f.createPack(
                by: u, name: "snaps", fence: Geofence(center: PictureAttackTests.here, radiusMeters: 2000), locked: locked)
            // 60 × 50: 9 chunks.
            let picture = try! PictureFormat.strip(TestPictures.png(width: size.0, height: size.1, seed: seed))
            (ref, blocks) = PictureBlocks.make(picture)
            post = f.op(.post(Post(title: "look", body: "", picture: ref)), by: u, in: g, location: PictureAttackTests.inside)
            e = GossipEngine(seed: seed, secrets: .seeded)
            _ = e.setInterest(cell: PictureAttackTests.inside, subscriptions: [], nowMs: PictureAttackTests.t0)
            r = Replica(config: .noFloors)
            #expect(r.admit(g, nowMs: PictureAttackTests.t0).isAdmitted)
            #expect(r.admit(post, nowMs: PictureAttackTests.t0).isAdmitted)
            peer = HostilePeer(address: PeerAddress("10.0.0.28:7000"), seed: seed)
            #expect(peer.handshake(with: &e, nowMs: PictureAttackTests.t0, replica: &r))
            _ = peer.send(WireForge.join(cell: cell), to: &e, nowMs: PictureAttackTests.t0, replica: &r)
            e.markReconciled(peer.address, nowMs: PictureAttackTests.t0)
        }

        /// Sends `plaintext` from the hostile peer; returns the engine's directives.
        mutating func send(_ plaintext: [UInt8], at ms: UInt64 = 1) -> [GossipDirective] {
            peer.send(plaintext, to: &e, nowMs: PictureAttackTests.t0 + ms, replica: &r)
        }

        /// The `(root, index)` of every block the engine asked the peer for in `ds`.
        func asked(_ ds: [GossipDirective]) -> [Int] {
            HostilePeer.sent(ds, to: peer.address).flatMap { peer.messages(in: $0) }.compactMap { WireForge.body($0) }
                .filter { $0.number == 21 }
                .flatMap { b in (WireForge.fields(b.bytes) ?? []).filter { $0.number == 2 }.flatMap(Self.indexes) }
        }

        /// Indexes of a `BlockWant` field 2: one varint, or packed varints.
        static func indexes(_ f: WireForge.Field) -> [Int] {
            if let v = f.varint { return [Int(v)] }
            var out: [Int] = [], v = 0, shift = 0
            for x in f.bytes ?? [] {
                v |= Int(x & 0x7F) << shift
                if x < 0x80 { out.append(v); v = 0; shift = 0 } else { shift += 7 }
            }
            return out
        }

        /// The `wait` flag of each `BlockWant` the engine sent the peer in `ds`.
        func waitFlags(_ ds: [GossipDirective]) -> [Bool] {
            HostilePeer.sent(ds, to: peer.address).flatMap { peer.messages(in: $0) }.compactMap { WireForge.body($0) }
                .filter { $0.number == 21 }
                .map { b in (WireForge.fields(b.bytes) ?? []).contains { $0.number == 3 && $0.varint == 1 } }
        }

        /// `Block` messages the engine sent the peer in `ds`: (index, data length).
        func blocksSent(_ ds: [GossipDirective]) -> [(index: Int, bytes: Int)] {
            HostilePeer.sent(ds, to: peer.address).flatMap { peer.messages(in: $0) }.compactMap { WireForge.body($0) }
                .filter { $0.number == 22 }
                .map { b in
                    let fs = WireForge.fields(b.bytes) ?? []
                    return (Int(fs.first { $0.number == 2 }?.varint ?? 0), fs.first { $0.number == 3 }?.bytes?.count ?? 0)
                }
        }
        func emptyAnswers(_ ds: [GossipDirective]) -> Int { blocksSent(ds).filter { $0.bytes == 0 }.count }
        func answered(_ ds: [GossipDirective]) -> [Int] { blocksSent(ds).filter { $0.bytes > 0 }.map(\.index) }

        static func received(_ ds: [GossipDirective]) -> [Int] {
            ds.compactMap { if case .blockReceived(_, _, let i, _) = $0 { i } else { nil } }
        }
    }

    @Test func wrongHashesAreDroppedAndCountedAndTheFetchGoesOn() throws {
        var s = Setup()
        #expect(s.e.activePeers.contains(s.peer.address))
        let first = s.e.fetchPicture(s.ref, pack: s.g.id, nowMs: Self.t0, replica: s.r)
        guard s.asked(first) == [0] else { Issue.record("the head was not asked of the only source"); return }
        #expect(s.asked(first) == [0])
        // A head that does not hash to the root, then the true one.
        #expect(Setup.received(s.send(WireForge.block(root: s.ref.root, index: 0, data: s.blocks[1]))).isEmpty)
        #expect(s.e.pictureStats.wrongHash == 1)
        let again = s.e.tick(nowMs: Self.t0 + 600, replica: &s.r)  // the ask timed out: asked again
        #expect(s.asked(again).contains(0))
        let afterHead = s.send(WireForge.block(root: s.ref.root, index: 0, data: s.blocks[0]), at: 601)
        #expect(Setup.received(afterHead) == [0])
        #expect(s.asked(afterHead) == [1])  // one page for 9 chunks
        let afterPage = s.send(WireForge.block(root: s.ref.root, index: 1, data: s.blocks[1]), at: 602)
        let chunks = s.asked(afterPage)
        #expect(chunks.count == 8)  // the per-peer bound
        // A chunk with one bit flipped: dropped and counted, not handed to the node.
        var bad = s.blocks[chunks[0]]
        bad[0] ^= 1
        #expect(Setup.received(s.send(WireForge.block(root: s.ref.root, index: UInt64(chunks[0]), data: bad), at: 603)).isEmpty)
        #expect(s.e.pictureStats.wrongHash == 2)
        // The rest arrive whole; the bad one is asked again after its timeout.
        var got: Set<Int> = [0, 1]
        var ms: UInt64 = 604
        for _ in 0..<20 where got.count < s.blocks.count {
            var ds = s.e.tick(nowMs: Self.t0 + ms, replica: &s.r)
            ms += 600
            for i in chunks + s.asked(ds) where !got.contains(i) {
                ds = s.send(WireForge.block(root: s.ref.root, index: UInt64(i), data: s.blocks[i]), at: ms)
                got.formUnion(Setup.received(ds))
            }
        }
        #expect(got.count == s.blocks.count)
        #expect(s.e.picturesFetching.isEmpty)
        #expect(s.e.pictureStats.fetchesDone == 1)
    }

    /// Waiting asks (`BlockWant.wait`, §10b): a peer's asks for blocks the victim lacks are
    /// kept up to `waitsPerPeer`, the rest and any index past the picture answered empty at
    /// once; a kept ask is answered when its block arrives; the others are answered empty after
    /// `waitMs`, and nothing stays behind.
    @Test func waitingAsksAreBoundedAnsweredOnArrivalAndExpire() throws {
        var s = Setup(size: (256, 260))  // ≈ 200 KB: 204 blocks
        #expect(s.ref.blockCount > PictureFetches.waitsPerPeer + 16)
        let first = s.e.fetchPicture(s.ref, pack: s.g.id, nowMs: Self.t0, replica: s.r)
        #expect(s.asked(first) == [0])
        let flood = (PictureFetches.waitsPerPeer + 16) / 8
        var empties = 0
        for k in 0..<flood {
            let ds = s.send(WireForge.blockWant(root: s.ref.root, indexes: (0..<8).map { UInt64(k * 8 + $0) }, wait: true))
            empties += s.emptyAnswers(ds)
        }
        _ = s.send(WireForge.blockWant(root: s.ref.root, indexes: [UInt64(s.ref.blockCount)], wait: true))  // past the picture
        #expect(s.e.pictureStats.waitsKept == PictureFetches.waitsPerPeer)
        #expect(s.e.pictureStats.waitsRefused == 16)
        #expect(empties == 16)
        #expect(s.e.pictures.waitTotal == PictureFetches.waitsPerPeer)
        // The head arrives (asked of this peer): the peer's kept ask of it is answered at once.
        let ds = s.send(WireForge.block(root: s.ref.root, index: 0, data: s.blocks[0]), at: 5)
        #expect(s.answered(ds) == [0])
        // After `waitMs` the rest are answered empty and forgotten.
        let late = s.e.tick(nowMs: Self.t0 + PictureFetches.waitMs + 10, replica: &s.r)
        #expect(s.emptyAnswers(late) == PictureFetches.waitsPerPeer - 1)
        #expect(s.e.pictureStats.waitsExpired == PictureFetches.waitsPerPeer - 1)
        #expect(s.e.pictures.waitTotal == 0 && s.e.pictures.waits.isEmpty && s.e.pictures.waitCount.isEmpty)
    }

    /// The post's origin is asked with `wait`, for up to `inFlightWaiting` blocks; an origin
    /// that answers nothing is asked like any link (no `wait`, `inFlightPerPeer` at most) once
    /// `originMissLimit` of its asks timed out.
    @Test func aSilentOriginIsAskedLikeAnyLinkAfterItsMisses() throws {
        var s = Setup(size: (256, 260))
        s.e.notePictureOrigin(s.post, from: s.peer.address, nowMs: Self.t0)
        let first = s.e.fetchPicture(s.ref, pack: s.g.id, nowMs: Self.t0, replica: s.r)
        #expect(s.asked(first) == [0] && s.waitFlags(first) == [true])
        var ds = s.send(WireForge.block(root: s.ref.root, index: 0, data: s.blocks[0]), at: 1)
        let pages = s.asked(ds)
        #expect(pages.count == s.ref.blockCount - Int(s.ref.chunks) - 1 && s.waitFlags(ds).allSatisfy { $0 })
        for (k, p) in pages.enumerated() {
            ds = s.send(WireForge.block(root: s.ref.root, index: UInt64(p), data: s.blocks[p]), at: 2 + UInt64(k))
        }
        #expect(s.asked(ds).count + pages.count - 1 <= PictureFetches.inFlightWaiting)
        // Silence: each ask times out (a waiting ask after `waitMs` and a margin), a miss each time.
        var ms: UInt64 = 100
        var plain: [Int] = []
        for _ in 0..<PictureFetches.originMissLimit + 1 where plain.isEmpty {
            ms += PictureFetches.waitMs + PictureFetches.askTimeoutMs + 10
            let again = s.e.tick(nowMs: Self.t0 + ms, replica: &s.r)
            if s.waitFlags(again).allSatisfy({ !$0 }) { plain = s.asked(again) }
        }
        #expect(!plain.isEmpty && plain.count <= PictureFetches.inFlightPerPeer)
    }

    /// A plain ask (no `wait`) of a block the victim is still fetching is answered empty at
    /// once, never kept.
    @Test func aPlainAskOfABlockNotHereIsAnsweredEmptyAtOnce() throws {
        var s = Setup()
        _ = s.e.fetchPicture(s.ref, pack: s.g.id, nowMs: Self.t0, replica: s.r)
        let ds = s.send(WireForge.blockWant(root: s.ref.root, indexes: [0, 1, 2]))
        #expect(s.emptyAnswers(ds) == 3)
        #expect(s.e.pictureStats.waitsKept == 0 && s.e.pictures.waitTotal == 0)
    }

    @Test func unrequestedBlocksAndAFloodAreDroppedUnread() throws {
        var s = Setup()
        _ = s.e.fetchPicture(s.ref, pack: s.g.id, nowMs: Self.t0, replica: s.r)
        // Blocks of a picture nobody fetches, and of ours at an index not asked (a chunk whose
        // page is not here), and the right head from before it was asked of this peer (ok).
        var ds = s.send(WireForge.block(root: [UInt8](repeating: 9, count: 32), index: 0, data: [1, 2, 3]))
        ds += s.send(WireForge.block(root: s.ref.root, index: 5, data: s.blocks[5]))
        #expect(Setup.received(ds).isEmpty)
        #expect(s.e.pictureStats.unrequested == 2)
        // A flood: 5,000 blocks in one second. The address's budget (§13) stops most before any
        // crypto; the rest are unrequested; nothing reaches the node and no state grows.
        var received = 0
        for i in 0..<5000 {
            let d = s.send(WireForge.block(root: s.ref.root, index: UInt64(2 + i % 9), data: s.blocks[2 + i % 9]), at: 2 + UInt64(i / 5000))
            received += Setup.received(d).count
        }
        #expect(received == 0)
        #expect(s.e.pictureStats.unrequested + (s.e.stats.drops["rateLimited"] ?? 0) >= 5000)
        #expect(s.e.picturesFetching.count == 1)
    }

    @Test func aManifestOfAMillionChunksIsRefusedBeforeAnyFetch() throws {
        var s = Setup()
        var huge = s.ref
        huge.chunks = 1_000_000
        huge.size = 1_000_000 * 1024
        let envelope = s.f.unchecked(.post(Post(title: "huge", body: "", picture: huge)), by: s.f.user(), in: s.g)
        let ds = s.send(WireForge.ops([envelope]))
        #expect(!ds.contains { if case .admitted = $0 { true } else { false } })
        #expect(s.e.fetchPicture(huge, pack: s.g.id, nowMs: Self.t0, replica: s.r).isEmpty)
        #expect(s.e.picturesFetching.isEmpty)
        // On the wire: an index past the largest picture's last block, more than 8 indexes, a
        // block over 1031 bytes: malformed messages, never handed on.
        let before = s.e.stats.drops["malformedMessage"] ?? 0
        _ = s.send(WireForge.blockWant(root: s.ref.root, indexes: [1_000_000]))
        _ = s.send(WireForge.blockWant(root: s.ref.root, indexes: Array(0..<9)))
        _ = s.send(WireForge.block(root: s.ref.root, index: 0, data: [UInt8](repeating: 0, count: 1100)))
        _ = s.send(WireForge.block(root: [1, 2], index: 0, data: []))
        #expect((s.e.stats.drops["malformedMessage"] ?? 0) == before + 4)
    }

    @Test func oversizedAndMalformedImagesAreRefused() throws {
        // Over 1 MiB after stripping; not an image; an image whose bytes check but do not parse.
        #expect(throws: ModelError.self) { try PictureFormat.strip(TestPictures.png(width: 620, height: 600)) }
        #expect(throws: ModelError.self) { try PictureFormat.strip([0xFF, 0xD8, 0xFF] + [UInt8](repeating: 0, count: 5000)) }
        let garbage = StrippedPicture(type: .png, bytes: [UInt8](repeating: 0x41, count: 3000), width: 1, height: 1)
        let (ref, blocks) = PictureBlocks.make(garbage)
        var a = PictureAssembly(ref: ref)
        for (i, b) in blocks.enumerated() { #expect(a.offer(index: i, data: b) == .accepted) }
        let bytes = PictureAssembly.assemble(ref: ref, blocks: Dictionary(uniqueKeysWithValues: blocks.enumerated().map { ($0, $1) }))
        #expect(bytes != nil && PictureFormat.measure(bytes!) == nil)  // `open` refuses it
    }

    @Test func noBlockLeavesForAPeerOutsideALockedFenceOrAStranger() throws {
        var s = Setup(locked: true, cell: Self.outside)
        let want = WireForge.blockWant(root: s.ref.root, indexes: [0, 1])
        let ds = s.send(want)
        let wanted = ds.compactMap { if case .blocksWanted(let root, let idx, let p) = $0 { (root, idx, p) } else { nil } }
        #expect(wanted.count == 1)
        // The node answers with what it holds; the engine refuses: the peer's cell is outside.
        let answer = s.e.answerBlocks(
            root: s.ref.root, pack: s.g.id, blocks: [(0, s.blocks[0]), (1, s.blocks[1])], to: s.peer.address, nowMs: Self.t0 + 2,
            replica: s.r)
        #expect(HostilePeer.sent(answer, to: s.peer.address).isEmpty)
        #expect(s.e.pictureStats.refused == 1)
        // Nor is it a source when we fetch.
        #expect(s.asked(s.e.fetchPicture(s.ref, pack: s.g.id, nowMs: Self.t0 + 3, replica: s.r)).isEmpty)

        // A stranger (a session, no Reconcile, no link) gets nothing and the node is not asked.
        var stranger = HostilePeer(address: PeerAddress("10.9.9.9:7000"), seed: 99)
        #expect(stranger.handshake(with: &s.e, nowMs: Self.t0, replica: &s.r))
        let sds = stranger.send(want, to: &s.e, nowMs: Self.t0 + 4, replica: &s.r)
        #expect(!sds.contains { if case .blocksWanted = $0 { true } else { false } })
        #expect(s.e.pictureStats.refused == 2)
    }

    @Test func answersToOnePeerAreBudgeted() throws {
        var s = Setup()
        var sent = 0
        for i in 0..<100 {
            let ds = s.e.answerBlocks(
                root: s.ref.root, pack: s.g.id, blocks: (0..<8).map { ($0, s.blocks[$0]) }, to: s.peer.address,
                nowMs: Self.t0 + UInt64(i), replica: s.r)
            sent += s.blocksSent(ds).count
        }
        // 800 wanted within 0.1 s: the burst (256) and what refilled (≈ 25) go, no more.
        #expect(sent >= 256 && sent <= 300)
        #expect(s.e.pictureStats.answersLimited > 0)
    }
}
