import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadTestKit

/// A second device (`skwad identity import`, PROTOCOL §2): two devices holding one master
/// secret act as the same pseudonym in a pack, and what they do at once — posts, edits of the
/// same post, votes on the same post, some at the same HLC — converges on every replica.
@Suite struct SecondDeviceTests {
    @Test func twoDevicesOfOneIdentityConvergeInEveryOrder() throws {
        var laptop = OpFactory(seed: 61, floors: false)
        var phone = OpFactory(seed: 62, floors: false)
        let owner = laptop.user()
        // The phone's copy, as an import gives it: the same 32 bytes, sealed and opened.
        let sealed = try PassphraseSeal.seal(owner.bytes, passphrase: "correct horse", work: .cheapest)
        let imported = try MasterSecret(bytes: PassphraseSeal.open(sealed, passphrase: "correct horse"))
        let other = laptop.user()
        let genesis = laptop.createPack(by: other, name: "flat")
        #expect(laptop.pseudonym(owner, in: genesis).publicKey == phone.pseudonym(imported, in: genesis).publicKey)

        let post = laptop.post(by: owner, in: genesis, title: "rent", body: "due friday")
        let same = laptop.nextHLC(advanceMs: 10)
        var ops = [genesis, post]
        ops.append(laptop.post(by: owner, in: genesis, title: "from the laptop"))
        ops.append(phone.post(by: imported, in: genesis, title: "from the phone"))
        // Both edit the post, both vote on it: once at different times, once at the same HLC.
        ops.append(laptop.op(.edit(Edit(target: post.id, body: "due saturday")), by: owner, in: genesis))
        ops.append(phone.op(.edit(Edit(target: post.id, body: "due sunday")), by: imported, in: genesis))
        ops.append(laptop.op(.edit(Edit(target: post.id, title: "rent!")), by: owner, in: genesis, hlc: same))
        ops.append(phone.op(.edit(Edit(target: post.id, title: "RENT")), by: imported, in: genesis, hlc: same))
        ops.append(laptop.op(.vote(Vote(target: post.id, value: 1)), by: owner, in: genesis, hlc: same))
        ops.append(phone.op(.vote(Vote(target: post.id, value: -1)), by: imported, in: genesis, hlc: same))
        ops.append(phone.vote(by: imported, in: genesis, on: post, value: 1))

        let nowMs = max(laptop.nowMs, phone.nowMs) + 1000
        var views: [Snapshot] = []
        var rng = SplitMix64(seed: 7)
        for _ in 0..<8 {
            var r = Replica(config: .noFloors)
            for op in ops.shuffled(using: &rng) { _ = r.admit(op, nowMs: nowMs) }
            #expect(ops.allSatisfy { r.contains($0.id) })
            views.append(snapshot(r, posts: [post.id], authors: [[laptop.pseudonym(owner, in: genesis).publicKey]], nowMs: nowMs))
        }
        #expect(Set(views.map { "\($0)" }).count == 1)
        // Both devices' posts are the one author's, and the post shows one vote of theirs.
        let feed = try #require(views.first).feedNew
        #expect(feed.count == 3 && Set(feed.map(\.author)).count == 1)
        #expect(feed.first { $0.id == post.id }.map { abs($0.score) <= 1 } == true)
    }
}
