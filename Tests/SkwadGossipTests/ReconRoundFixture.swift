import SkwadModel
import SkwadReplica
@testable import SkwadGossip
import SkwadTestKit

/// Nine packs in a fresh replica, for the tests of a reconciliation round: eight open ones
/// that a node follows and one fenced one. At 4 packs a round, the fenced pack's turn does
/// not come every round.
struct ReconRoundFixture {
    let open: [SignedOp]
    let fenced: SignedOp
    let replica: Replica
    let nowMs: UInt64

    init(seed: UInt64, fence: Geofence, locked: Bool) {
        var f = OpFactory(seed: seed, floors: false)
        let alpha = f.user()
        open = (0..<8).map { f.createPack(by: alpha, name: "open\($0)") }
        fenced = f.createPack(by: alpha, name: "lab", fence: fence, locked: locked)
        var replica = Replica(config: .noFloors)
        for p in open + [fenced] { _ = replica.admit(p, nowMs: f.nowMs) }
        self.replica = replica
        nowMs = f.nowMs
    }

    /// Runs `count` rounds one second apart from `from`: in how many did `asked` hold of the
    /// round's reconciliations?
    func rounds(_ e: inout GossipEngine, from: UInt64, count: Int, where asked: (Set<ReconAsked>) -> Bool) -> Int {
        var rounds = 0
        for k in 0..<count {
            var out: [GossipDirective] = []
            e.reconcileRound(nowMs: from + UInt64(k) * 1000, replica: replica, into: &out)
            if asked(e.spread.reconUnanswered) { rounds += 1 }
        }
        return rounds
    }
}
