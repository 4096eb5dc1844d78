import Foundation
import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadNode
import SkwadStore
import SkwadTestKit

/// A feature that records what the node tells it, through every hook of `NodeFeature`.
final class RecordingFeature: NodeFeature, @unchecked Sendable {
    private let lock = NSLock()
    private var log: [String: [OpID]] = [:]
    private var changes: [LocalChange] = []
    private var listened: [Bool] = []
    /// A kind this feature refuses to have signed.
    let refuses: String?

    init(refusing kind: String? = nil) { refuses = kind }

    func ids(_ hook: String) -> [OpID] { lock.withLock { log[hook] ?? [] } }
    var applied: [LocalChange] { lock.withLock { changes } }
    var listening: [Bool] { lock.withLock { listened } }
    private func note(_ hook: String, _ ids: [OpID]) { lock.withLock { log[hook, default: []] += ids } }

    func committed(_ ops: [SignedOp], node: isolated Node) { note("committed", ops.map(\.id)) }
    func arrived(_ ops: [SignedOp], nowMs: UInt64, listening: Bool, node: isolated Node) -> [NodeEvent] {
        note("arrived", ops.map(\.id))
        lock.withLock { listened.append(listening) }
        return []
    }
    func settle(_ ops: [SignedOp], nowMs: UInt64, node: isolated Node) { note("settled", ops.map(\.id)) }
    func inboxItems(_ ops: [SignedOp], nowMs: UInt64, node: isolated Node) -> [InboxItem] {
        note("inbox", ops.map(\.id))
        return []
    }
    func seal(_ kind: OpKind, pack: PackState, author: PublicKey, node: isolated Node) throws -> OpKind {
        if kind.name == refuses { throw NodeError("no \(kind.name) here") }
        note("sealed", [pack.id])
        return kind
    }
    func apply(_ change: LocalChange, node: isolated Node) { lock.withLock { changes.append(change) } }
}

/// The node's feature seam (`NodeFeature`): a feature registered hears every op admitted from
/// elsewhere once on each path, every local change, and every op the user signs.
@Suite(.serialized) struct NodeFeatureTests {
    @Test func aRegisteredFeatureHearsEachAdmittedOpOnce() async throws {
        let net = TestNet()
        let a = try await net.add()
        let b = try await net.add()
        #expect(await net.linked())
        let heard = RecordingFeature()
        await b.register(heard)

        let pack = try await a.createPack(name: "Quad", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        let first = try await a.post(pack: "Quad", title: "One", body: "", tags: [])
        #expect(await eventually() { await holds(b, [pack.id, first]) })
        await b.setEventSink { _ in }
        let second = try await a.post(pack: "Quad", title: "Two", body: "", tags: [])
        #expect(await eventually() { await holds(b, [second]) })
        #expect(await eventually() { heard.ids("settled").count == 3 })

        // The same ops again from a peer: duplicates, admitted nowhere, heard by no one.
        let replay = try await [pack.id, first, second].asyncMap { try #require(await a.replica.op($0)).bytes }
        let wire = try net.wirePeer(to: 1, seed: 7)
        func stat(_ key: String) async -> Int { await b.networkStats().first { $0.0 == key }?.1 ?? 0 }
        let duplicates = await stat("ops.duplicate")
        // A session nobody has sent on expires after 3 s: on a loaded machine the send can come
        // later than that, so the handshake and the send are tried again (at most 5 times).
        var counted = false
        for _ in 0..<5 where !counted {
            try await wire.handshake()
            wire.send(WireForge.ops(replay))
            counted = await eventually(seconds: 10) { await stat("ops.duplicate") >= duplicates + 3 }
        }
        #expect(counted)

        let admitted = Set([pack.id, first, second])
        for hook in ["committed", "arrived", "settled"] {
            #expect(heard.ids(hook).count == 3, "\(hook): \(heard.ids(hook).count)")
            #expect(Set(heard.ids(hook)) == admitted, "\(hook)")
        }
        #expect(await b.stats.admitted == 3)
        // Told whether anyone listens: nobody for the first batch(es), the sink for the last.
        #expect(heard.listening.first == false && heard.listening.last == true)

        // `inbox` hands the features the ops stored since the last look, once per look.
        _ = try await b.inbox()
        #expect(Set(heard.ids("inbox")) == admitted && heard.ids("inbox").count == 3)
        _ = try await b.inbox()
        #expect(heard.ids("inbox").count == 3)
        await net.shutdown()
    }

    @Test func aRegisteredFeatureSealsWhatTheUserSignsAndHearsLocalChanges() async throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var c = testConfig(dir)
        c.location = try GeoPoint(lat: 40.4433, lon: -79.9436)
        let node = try Node(config: c)
        let feature = RecordingFeature(refusing: "vote")
        await node.register(feature)
        let pack = try await node.createPack(name: "Quad", radiusMeters: 1000, locked: false, tags: [], color: "")
        let post = try await node.post(pack: "Quad", title: "Hello", body: "", tags: [])
        // The genesis is signed before its pack exists (no pack to seal in); the post is sealed once.
        #expect(feature.ids("sealed") == [pack.id])
        #expect(feature.applied.contains { if case .joined(pack.id, true, _) = $0 { true } else { false } })
        #expect(feature.applied.contains { if case .stamp(pack.id, _) = $0 { true } else { false } })
        // A feature that refuses a kind stops it before anything is committed.
        await #expect(throws: NodeError.self) { try await node.vote(on: post.short(), value: 1) }
        #expect(await node.replica.count == 2)
        await node.close()
    }

    /// The node keeps the identity, the store, the engine's driving and the list of features;
    /// a feature's state is its own (docs/ARCHITECTURE.md, "Inside the node").
    @Test func theNodeStoresTwelveThings() async throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let node = try Node(config: testConfig(dir))
        let stored = Mirror(reflecting: node).children.compactMap(\.label).filter { !$0.hasPrefix("$") }
        #expect(
            stored == [
                "config", "dataDir", "store", "replica", "identity", "own", "features", "now", "stats", "listeners", "online", "upkeep"
            ])
        await node.close()
    }
}
