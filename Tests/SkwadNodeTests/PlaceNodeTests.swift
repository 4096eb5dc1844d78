import Foundation
import Testing
import SkwadCrypto
import SkwadModel
import SkwadReplica
@testable import SkwadNode

/// Places and captions on one node (issues 27, 28 and 47): what the node signs for its user.
@Suite struct PlaceNodeTests {
    func withNode(_ body: (Node) async throws -> Void) async throws {
        let dir = tempDataDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let node = try Node(config: testConfig(dir))
        try await body(node)
        await node.close()
    }

    func message(_ body: () async throws -> Void) async -> String {
        do { try await body(); return "" } catch { return "\(error)" }
    }

    /// A named review is signed by the persona, as `post --named` is: its author is not the
    /// pseudonym of the user's anonymous ops in the pack, and none of those carries the name.
    @Test func aNamedReviewIsSignedByThePersonaAndNotLinkedToTheAnonymousPseudonym() async throws {
        try await withNode { node in
            let pack = try await node.createPack(name: "Hill", radiusMeters: nil, locked: false, tags: [], color: "")
            let place = try await node.addPlace(pack: "Hill", PlaceInput(address: "1 Oak St"))
            let anon = try await node.post(pack: "Hill", title: "Anonymous rant", body: "heat broken again", tags: [])
            let review = try await node.review(
                place.hex, ReviewInput(overallHalf: 6, location: 3, management: 2, amenities: 3, again: false, text: "", name: "Sam"))
            let pseudonym = try #require(await node.key(for: pack.id)).publicKey
            let persona = try #require(await node.personaKey(pack.id)).publicKey
            #expect(pseudonym != persona)
            let page = try await node.placePage(place.hex)
            let shown = try #require(page.detail.reviews.first { $0.id == review })
            #expect(shown.author == persona && shown.review.name == "Sam")
            let post = try await node.show(anon.hex).post
            #expect(post.author == pseudonym && post.displayName == nil)
            // Nothing the pseudonym signed in the pack names Sam, and nothing the persona signed
            // is one of its anonymous ops.
            let ops = await node.replica.allOps.filter { $0.packID == pack.id }
            for op in ops where op.author == pseudonym {
                if case .review(let r) = op.body.kind { #expect(r.name.isEmpty) }
                if case .profile = op.body.kind { Issue.record("a profile under the pseudonym") }
            }
            #expect(ops.filter { $0.author == persona }.map(\.id) == [review])
            // The named review is the user's: in the den, and deleted by the persona that signed it.
            #expect(await node.den().reviews.map(\.id) == [review])
            let deletion = try await node.delete(review.hex)
            #expect(await node.replica.op(deletion)?.author == persona)
            #expect(try await node.placePage(place.hex).detail.reviews.isEmpty)
        }
    }

    /// One person, one review of a place: under the pseudonym or under the persona, not both.
    @Test func oneReviewPerPersonAcrossTheTwoKeys() async throws {
        try await withNode { node in
            _ = try await node.createPack(name: "Hill", radiusMeters: nil, locked: false, tags: [], color: "")
            let place = try await node.addPlace(pack: "Hill", PlaceInput(address: "1 Oak St")).hex
            func input(_ name: String) -> ReviewInput {
                ReviewInput(overallHalf: 8, location: 4, management: 4, amenities: 4, again: true, text: "", name: name)
            }
            let anon = try await node.review(place, input(""))
            let refused = await message { _ = try await node.review(place, input("Sam")) }
            #expect(refused.hasPrefix("you reviewed this place anonymously (") && refused.contains("delete "))
            _ = try await node.delete(anon.hex)
            _ = try await node.review(place, input("Sam"))
            let again = await message { _ = try await node.review(place, input("")) }
            #expect(again.hasPrefix("you reviewed this place under a name ("))
            // A second named review edits the first: one register, the latest shown.
            _ = try await node.review(place, input("Sam R."))
            let reviews = try await node.placePage(place).detail.reviews
            #expect(reviews.count == 1 && reviews[0].review.name == "Sam R." && reviews[0].edited)
        }
    }

    /// In a locked pack every kind admission wants a claim on (PROTOCOL §4 rule 7) gets the
    /// user's cell: a pick (the README's pack, by its Alpha), a place, a review.
    @Test func opsOfALockedPackCarryTheirClaim() async throws {
        try await withNode { node in
            try await node.locate(try GeoPoint(lat: 40.4433, lon: -79.9436))
            let pack = try await node.createPack(name: "Quad", radiusMeters: 800, locked: true, tags: [], color: "")
            let ask = try await node.ask(pack: "Quad", prompt: "caption this")
            let caption = try await node.comment(on: ask.hex, text: "finals week")
            let pick = try await node.pick(caption.hex).pick
            let place = try await node.addPlace(pack: nil, PlaceInput(address: "1 Oak St"))
            let review = try await node.review(
                place.hex, ReviewInput(overallHalf: 8, location: 4, management: 4, amenities: 4, again: true, text: ""))
            let fence = try #require(pack.fence)
            for id in [pick, place, review] {
                let claim = try #require(await node.replica.op(id)?.body.location)
                #expect(fence.contains(geohash: claim))
            }
        }
    }

    /// A refusal of the replica names the pack by the name the user knows, not by its id.
    @Test func refusalsNameThePackByItsLabel() throws {
        let id = try OpID(bytes: [UInt8](repeating: 0xab, count: 32))
        let outcome = AdmitOutcome.rejected(.missingLocation, "pack \(id.short()) is locked: a location claim is required")
        let named = NodeError.from(outcome, naming: id, as: { _ in "Quad Lawn" })
        #expect(named.description == "pack 'Quad Lawn' is locked: a location claim is required")
        #expect(NodeError.from(outcome, naming: id, as: { _ in nil }).description.hasPrefix("pack \(id.short()) is locked"))
    }
}

extension PlaceInput {
    init(address: String) {
        self.init()
        self.address = address
    }
}
