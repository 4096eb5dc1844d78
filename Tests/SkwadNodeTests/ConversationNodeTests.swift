import Foundation
import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadNode
import SkwadStore
import SkwadTestKit

/// Issue 26 through the Node API, three nodes gossiping over the in-memory datagram network: a direct
/// message reaches only its recipient, is acknowledged, survives a restart; safety numbers
/// match; blocks hold; a hostile peer's forged, flooding and oversized letters say nothing.
@Suite(.serialized) struct ConversationNodeTests {
    func message(_ body: () async throws -> Void) async -> String {
        do { try await body(); return "" } catch { return "\(error)" }
    }

    func letters(_ events: Collector<NodeEvent>) -> [ConversationEntry] {
        events.all.compactMap { if case .conversation(.message(let e, _, _)) = $0 { e } else { nil } }
    }

    @Test func aMessageReachesOnlyItsRecipientAndComesBackDelivered() async throws {
        let net = TestNet()
        for _ in 0..<3 { try await net.add() }
        #expect(await net.linked())
        let (alpha, bob, carol) = (net.nodes[0], net.nodes[1], net.nodes[2])
        let bobEvents = Collector<NodeEvent>(), carolEvents = Collector<NodeEvent>()
        await bob.setEventSink { bobEvents.append($0) }
        await carol.setEventSink { carolEvents.append($0) }
        _ = try await alpha.createPack(name: "Quad", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        #expect(await net.synced())
        let post = try await bob.post(pack: "Quad", title: "Roommate wanted", body: "quiet, clean", tags: [])
        #expect(await net.synced())
        let sent = try await carol.dm(to: post.short(), text: "still looking? I can visit at 6")
        #expect(await net.synced())
        #expect(await eventually { letters(bobEvents).map(\.text) == ["still looking? I can visit at 6"] })
        let carolKey = try #require(letters(bobEvents).first?.peer)
        // Carol's chat: her message, then delivered once Bob's receipt is back.
        #expect(
            await eventually {
                await carolEvents.all.contains(.conversation(.delivered(id: sent.id, peer: sent.peer)))
            })
        guard case .thread(_, _, let peer, _, let entries) = try await carol.chat(with: post.short()) else {
            Issue.record("no thread"); return
        }
        #expect(peer == sent.peer && entries.map(\.delivered) == [true] && entries.map(\.mine) == [true])
        // Bob answers by the message's id; the Alpha relayed both and reads neither.
        _ = try await bob.dm(to: sent.id.short(), text: "yes, come by")
        #expect(await eventually { letters(carolEvents).map(\.text) == ["yes, come by"] })
        #expect(await net.synced())
        guard case .list(let none) = try await alpha.chat(with: nil) else { Issue.record("not a list"); return }
        #expect(none.isEmpty)
        let relay = await alpha.replica
        let dms = relay.directMessageIDs(in: try await alpha.resolvePack("Quad").id)
        #expect(dms.count >= 3)  // two messages and at least one receipt
        for id in dms {
            guard case .directMessage(let d) = relay.op(id)?.body.kind else { Issue.record("not a DM"); continue }
            #expect(Limits.directSealedSizes.contains(d.sealed.count))
            #expect(relay.op(id)?.author != carolKey && relay.op(id)?.author != sent.peer)
        }
        // Safety numbers: the same on both sides; a verified mark afterwards.
        let onCarol = try await carol.verify(sent.peer.hex)
        let onBob = try await bob.verify(carolKey.hex)
        #expect(onCarol.number == onBob.number && !onCarol.verified)
        #expect(try await carol.verify(sent.peer.hex, confirm: true).verified)
        guard case .list(let convs) = try await carol.chat(with: nil) else { Issue.record("not a list"); return }
        #expect(convs.count == 1 && convs[0].verified && convs[0].count == 2)
        // Inbox: the message is news once.
        let inbox = try await bob.inbox().items
        #expect(inbox.contains { if case .letter(let e) = $0.kind { e.text.hasPrefix("still looking") } else { false } })
        await net.shutdown()
    }

    @Test func aBlockedPseudonymCannotReachYou() async throws {
        let net = TestNet()
        for _ in 0..<2 { try await net.add() }
        #expect(await net.linked())
        let (bob, carol) = (net.nodes[0], net.nodes[1])
        let bobEvents = Collector<NodeEvent>()
        await bob.setEventSink { bobEvents.append($0) }
        _ = try await bob.createPack(name: "Quad", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        #expect(await net.synced())
        let post = try await bob.post(pack: "Quad", title: "hello", body: "", tags: [])
        let cPost = try await carol.post(pack: "Quad", title: "hi", body: "", tags: [])
        #expect(await net.synced())
        let carolKey = try #require(await carol.replica.op(cPost)?.author)
        _ = try await bob.block(carolKey.hex, on: true)
        let sent = try await carol.dm(to: post.short(), text: "you can't ignore me")
        #expect(await net.synced())
        #expect(await bob.replica.contains(sent.id))
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(letters(bobEvents).isEmpty)
        guard case .list(let convs) = try await bob.chat(with: nil) else { Issue.record("not a list"); return }
        #expect(convs.isEmpty)
        #expect(await bob.replica.directMessageIDs(in: try await bob.resolvePack("Quad").id) == [sent.id])  // no receipt went back
        let refused = await message { _ = try await bob.dm(to: cPost.short(), text: "x") }
        #expect(refused.hasPrefix("you blocked"))
        await net.shutdown()
    }

    @Test func aFollowedPseudonymsPostsMakeAFeedALineAndInboxEntries() async throws {
        let net = TestNet()
        for _ in 0..<2 { try await net.add() }
        #expect(await net.linked())
        let (bob, carol) = (net.nodes[0], net.nodes[1])
        let events = Collector<NodeEvent>()
        await bob.setEventSink { events.append($0) }
        _ = try await carol.createPack(name: "Kitchen", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        let first = try await carol.post(pack: "Kitchen", title: "Best ramen", body: "", tags: [])
        #expect(await net.synced())
        _ = try await bob.inbox()  // the mark moves past what was there before the follow
        let f = try await bob.follow(first.short(), on: true)
        #expect(await bob.following().map(\.author) == [f.author] && f.packName == "Kitchen")
        let second = try await carol.post(pack: "Kitchen", title: "Dumplings tonight", body: "", tags: [])
        #expect(
            await eventually {
                events.all.contains { if case .conversation(.followedPost(let p)) = $0 { p.id == second } else { false } }
            })
        #expect(await bob.followingFeed(limit: 10).map(\.id) == [second, first])
        #expect(try await bob.inbox().items.contains { if case .followedPost(let p) = $0.kind { p.id == second } else { false } })
        let me = await message { _ = try await carol.follow(first.short(), on: true) }
        #expect(me == "that is you")
        _ = try await bob.follow(f.author.hex, on: false)
        #expect(await bob.followingFeed(limit: 10).isEmpty)
        #expect(await bob.following().isEmpty)
        await net.shutdown()
    }

    @Test func aDisplayNameShowsInItsPackOnlyAndNamedPostsAreNotLinkedToAnonymousOnes() async throws {
        let net = TestNet()
        for _ in 0..<2 { try await net.add() }
        #expect(await net.linked())
        let (bob, carol) = (net.nodes[0], net.nodes[1])
        _ = try await carol.createPack(name: "Quad", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        _ = try await carol.createPack(name: "Kitchen", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        #expect(await net.synced())
        let refused = await message { _ = try await bob.postNamed(pack: "Quad", title: "x", body: "", tags: []) }
        #expect(refused.hasPrefix("you have no display name in Quad"))
        let p = try await bob.profile(pack: "Quad", name: "Sam", about: "looking for a room")
        let named = try await bob.postNamed(pack: "Quad", title: "Room wanted", body: "", tags: [])
        let anon = try await bob.post(pack: "Quad", title: "Anonymous rant", body: "", tags: [])
        let other = try await bob.post(pack: "Kitchen", title: "Ramen?", body: "", tags: [])
        #expect(await net.synced())
        let quad = try await carol.feed(pack: "Quad", sort: .new, limit: 10)
        let namedView = try #require(quad.first { $0.id == named }), anonView = try #require(quad.first { $0.id == anon })
        #expect(namedView.displayName == "Sam" && namedView.author == p.persona)
        #expect(anonView.displayName == nil && anonView.author != p.persona)
        #expect(try await carol.feed(pack: "Kitchen", sort: .new, limit: 10).first { $0.id == other }?.displayName == nil)
        // Bob's node counts both as his (den, inbox), and a DM to the named author reaches him, answered as Sam.
        let quadID = try await bob.resolvePack("Quad").id
        #expect(await bob.isMine(p.persona, in: quadID))
        let events = Collector<NodeEvent>()
        await bob.setEventSink { events.append($0) }
        let sent = try await carol.dm(to: named.short(), text: "is it still free?")
        #expect(sent.peer == p.persona)
        #expect(
            await eventually {
                events.all.contains {
                    if case .conversation(
                        .message(
                            let e, _,
                            _)) = $0
                    {
                        e.text == "is it still free?"
                    } else {
                        false
                    }
                }
            })
        let answer = try await bob.dm(to: sent.id.short(), text: "yes")
        #expect(await net.synced())
        guard case .thread(_, _, _, _, let entries) = try await carol.chat(with: sent.peer.hex) else { Issue.record("no thread"); return }
        #expect(entries.map(\.text) == ["is it still free?", "yes"] && entries.last?.id == answer.id)
        await net.shutdown()
    }

    /// A hostile peer on the wire sends profiles: oversized ones are refused and counted; one
    /// key's name in another pack names nothing here; the node keeps serving.
    @Test func hostileProfilesFromTheWire() async throws {
        let net = TestNet()
        let node = try await net.add()
        var f = OpFactory(seed: 2614, nowMs: net.clock.now)
        let mallory = f.user()
        _ = try await node.createPack(name: "Quad", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        let g = try #require(await node.replica.op(try await node.resolvePack("Quad").id))
        let elsewhere = f.createPack(by: mallory, name: "Elsewhere")
        let key = f.pseudonym(mallory, in: g)
        let post = f.op(.post(Post(title: "hello", body: "")), by: mallory, in: g)
        let foreign = f.op(.profile(Profile(name: "Alpha of Quad")), by: mallory, in: elsewhere, signer: key)
        let long = f.unchecked(.profile(Profile(name: String(repeating: "N", count: 200))), by: mallory, in: g)
        let wire = try net.wirePeer(to: 0, seed: 7)
        try await wire.handshake()
        wire.send(WireForge.ops([elsewhere.bytes, post.bytes]))
        wire.send(WireForge.ops([foreign.bytes, long]))
        #expect(await eventually { await holds(node, [elsewhere.id, post.id, foreign.id]) })
        #expect(await eventually { await node.counters().contains { $0.0.hasSuffix("malformed") && $0.1 >= 1 } })
        #expect(try await node.feed(pack: "Quad", sort: .new, limit: 10).first { $0.id == post.id }?.displayName == nil)
        _ = try await node.post(pack: "Quad", title: "still here", body: "", tags: [])
        await net.shutdown()
    }

    /// A hostile peer on the wire: a forged letter (Mallory signs as Alice), a flood of 70
    /// letters from one sender in one hour, an oversized box and a box of an odd size. The node
    /// keeps serving; only Alice's real letters count, at most 60 of the flood, the rest dropped.
    @Test func forgedFloodingAndOversizedLettersFromTheWireSayNothing() async throws {
        let net = TestNet()
        let clock = net.clock
        let node = try await net.add()
        var f = OpFactory(seed: 2605, nowMs: clock.now)
        let alice = f.user(), mallory = f.user()
        _ = try await node.createPack(name: "Quad", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        let g = try #require(await node.replica.op(try await node.resolvePack("Quad").id))
        _ = try await node.post(pack: "Quad", title: "ask me", body: "", tags: [])
        let me = try #require(await node.key(for: g.id))
        let forged = f.directMessage(from: alice, to: me.publicKey, in: g, text: "forged", signer: f.pseudonym(mallory, in: g))
        let real = f.directMessage(from: alice, to: me.publicKey, in: g, text: "real")
        let hour = clock.now / Lifetime.hour * Lifetime.hour
        let flood = (0..<70).map { i in
            f.directMessage(from: mallory, to: me.publicKey, in: g, text: "spam \(i)", hlc: HLC(physicalMs: hour + UInt64(i), counter: 0))
        }
        let oversize = f.unchecked(.directMessage(DirectMessage(sealed: [UInt8](repeating: 9, count: 1000))), by: mallory, in: g)
        let odd = f.unchecked(.directMessage(DirectMessage(sealed: [UInt8](repeating: 9, count: 400))), by: mallory, in: g)
        // Built before the handshake: minting their stamps takes longer than an unproven session lives.
        let wire = try net.wirePeer(to: 0, seed: 5)
        try await wire.handshake()
        wire.send(WireForge.ops([forged.bytes]))  // one letter per datagram: a letter is up to ~1 KB
        wire.send(WireForge.ops([real.bytes]))
        wire.send(WireForge.ops([oversize]))
        wire.send(WireForge.ops([odd]))
        for op in flood { wire.send(WireForge.ops([op.bytes])) }
        #expect(await eventually { await holds(node, [forged.id, real.id] + flood.map(\.id)) })
        #expect(
            await eventually {
                let s = await node.counters(); return s.contains { $0.0.contains("malformed") && $0.1 >= 1 }
            })
        guard case .list(let convs) = try await node.chat(with: nil) else { Issue.record("not a list"); return }
        let byText = Dictionary(uniqueKeysWithValues: convs.map { ($0.peer, $0.count) })
        #expect(byText[f.pseudonym(alice, in: g).publicKey] == 1)
        #expect(byText[f.pseudonym(mallory, in: g).publicKey] == Limits.lettersPerSenderHour)
        guard case .thread(_, _, _, _, let aliceLetters) = try await node.chat(with: f.pseudonym(alice, in: g).publicKey.hex) else {
            Issue.record("no thread"); return
        }
        #expect(aliceLetters.map(\.text) == ["real"])
        // Still serving.
        _ = try await node.post(pack: "Quad", title: "still here", body: "", tags: [])
        await net.shutdown()
    }
    /// A hostile peer on the wire floods one stamped pseudonym's letters into one clock hour:
    /// the 15 newest first, then 60 older ones. The node raises a `dm` event and sends a
    /// receipt only for the letters that count, the first 60 to arrive, and its views show
    /// exactly those (SECURITY.md "DM floods").
    @Test func aFloodBackdatedPastTheCapRaisesNoEventOrReceiptBeyondIt() async throws {
        let net = TestNet()
        let clock = net.clock
        let node = try await net.add()
        let events = Collector<NodeEvent>()
        await node.setEventSink { events.append($0) }
        var f = OpFactory(seed: 4701, nowMs: clock.now)
        let mallory = f.user()
        _ = try await node.createPack(name: "Quad", radiusMeters: TestNet.radius, locked: false, tags: [], color: "")
        let g = try #require(await node.replica.op(try await node.resolvePack("Quad").id))
        _ = try await node.post(pack: "Quad", title: "ask me", body: "", tags: [])
        let me = try #require(await node.key(for: g.id))
        let hour = clock.now / Lifetime.hour * Lifetime.hour
        let flood = (0..<75).map { i in
            f.directMessage(from: mallory, to: me.publicKey, in: g, text: "spam \(i)", hlc: HLC(physicalMs: hour + UInt64(i), counter: 0))
        }
        let wire = try net.wirePeer(to: 0, seed: 47)
        try await wire.handshake()
        for op in flood[60...] { wire.send(WireForge.ops([op.bytes])) }
        #expect(await eventually { await holds(node, flood[60...].map(\.id)) })
        for op in flood[..<60] { wire.send(WireForge.ops([op.bytes])) }
        #expect(await eventually { await holds(node, flood.map(\.id)) })
        // Receipts: the node's own letters to Mallory, opened with Mallory's key.
        let malloryKey = f.pseudonym(mallory, in: g)
        func acked() async -> Set<OpID> {
            Set(await node.replica.letters(in: g.id, openedWith: malloryKey).flatMap(\.letter.acks))
        }
        #expect(await eventually { await acked().count >= Limits.lettersPerSenderHour })
        guard case .thread(_, _, _, _, let shown) = try await node.chat(with: malloryKey.publicKey.hex) else {
            Issue.record("no thread"); return
        }
        let announced = letters(events).filter { $0.peer == malloryKey.publicKey }
        #expect(shown.count == Limits.lettersPerSenderHour)
        #expect(announced.count == Limits.lettersPerSenderHour)
        #expect(Set(announced.map(\.id)) == Set(shown.map(\.id)))
        #expect(await acked() == Set(shown.map(\.id)))
        // The 15 that came first count; 15 of the older ones do not.
        #expect(Set(flood[60...].map(\.id)).isSubset(of: Set(shown.map(\.id))))
        let inbox = try await node.inbox().items.filter {
            if case .letter(let e) = $0.kind { e.peer == malloryKey.publicKey } else { false }
        }
        #expect(inbox.count == Limits.lettersPerSenderHour)
        await net.shutdown()
    }
}
