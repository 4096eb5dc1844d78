import SkwadModel
import SkwadReplica

/// Pictures (PROTOCOL §10b): the blocks of a picture are pulled by the root its post
/// carries, from links that may hold the pack (the fence rule of ops, §12), several at once
/// and a bounded number in flight. The engine keeps what it fetches and checks every block
/// against the manifest (`PictureAssembly`); the node keeps the blocks: it is asked for the
/// blocks a peer wants (`blocksWanted`) and handed each checked block (`blockReceived`).
struct PictureFetches: Sendable {
    /// What the fetches did (`GossipEngine.pictureStats`).
    var stats = PictureStats()
    struct Fetch: Sendable {
        let pack: PackID
        var assembly: PictureAssembly
        /// Blocks asked for and not yet here: from whom, since when, and whether that peer may
        /// keep the ask until it has the block (`wait`: asked of the origin).
        var asked: [Int: (peer: PeerAddress, atMs: UInt64, wait: Bool)] = [:]
        /// Who announced the post first: asked first.
        var origin: PeerAddress?
        /// Per peer, asks that timed out or failed; the peers with fewest are asked first.
        var misses: [PeerAddress: Int] = [:]
        var lastProgressMs: UInt64
        /// Per block, the peers it was asked of and whose ask timed out (at most
        /// `askHistory`): their late answer is still taken, not counted as unrequested.
        var askedBefore: [Int: [PeerAddress]] = [:]
        /// Smoothed time from an ask to its block (ms): the ask timeout is 4 × this, within
        /// `askTimeoutMs...maxAskTimeoutMs`, so a loaded link is not asked twice for nothing.
        var rttMs: Double = 100

        var askTimeoutMs: UInt64 {
            min(PictureFetches.maxAskTimeoutMs, max(PictureFetches.askTimeoutMs, UInt64(rttMs * 4)))
        }

        /// How long an ask of `a` may go unanswered: a waiting ask as long as the origin may
        /// keep it, and then the time its empty answer takes.
        func timeout(_ a: (peer: PeerAddress, atMs: UInt64, wait: Bool)) -> UInt64 {
            a.wait ? max(askTimeoutMs, PictureFetches.waitMs &+ PictureFetches.askTimeoutMs) : askTimeoutMs
        }
    }

    /// A block a peer asked for with `wait` while we were fetching it ourselves: answered when
    /// it arrives, or empty after `waitMs`.
    struct Waiter: Sendable, Equatable {
        let peer: PeerAddress
        let index: Int
        let atMs: UInt64
    }

    var fetches: [[UInt8]: Fetch] = [:]
    var origins: [[UInt8]: (peer: PeerAddress, atMs: UInt64)] = [:]
    var answerBudget: [PeerAddress: TokenBucket] = [:]
    /// Waiting asks by root (at most `waitCapacity` in all, `waitsPerPeer` per peer).
    var waits: [[UInt8]: [Waiter]] = [:]
    var waitCount: [PeerAddress: Int] = [:]
    var waitTotal = 0

    /// A fetch under way (asks to time out, or blocks to ask again at the next tick) or asks
    /// kept waiting: ticks come every `tickMs`.
    var busy: Bool { !fetches.isEmpty || waitTotal > 0 }

    /// Starts fetching `ref` (blocks in `known` offered first) unless it is fetched already,
    /// malformed, or whole with `known`: true when a fetch started. When full, the fetch that
    /// progressed least recently is abandoned.
    mutating func start(_ ref: PictureRef, pack: PackID, known: [Int: [UInt8]], nowMs: UInt64) -> Bool {
        guard (try? ref.check()) != nil, fetches[ref.root] == nil else { return false }
        var assembly = PictureAssembly(ref: ref)
        for i in known.keys.sorted() { _ = assembly.offer(index: i, data: known[i]!) }
        guard !assembly.isComplete else { return false }
        if fetches.count >= Self.capacity,
            let stalest = fetches.min(by: { a, b in
                a.value.lastProgressMs != b.value.lastProgressMs
                    ? a.value.lastProgressMs < b.value.lastProgressMs : a.key.lexicographicallyPrecedes(b.key)
            })
        {
            fetches[stalest.key] = nil
            stats.fetchesAbandoned += 1
        }
        fetches[ref.root] = .init(pack: pack, assembly: assembly, origin: origins[ref.root]?.peer, lastProgressMs: nowMs)
        stats.fetchesStarted += 1
        return true
    }

    /// Stops fetching a picture; asks kept waiting for its blocks are dropped.
    mutating func cancel(root: [UInt8]) {
        fetches[root] = nil
        for w in waits.removeValue(forKey: root) ?? [] { forgetWait(w.peer) }
    }

    /// `peer` sent us the post of the picture `root` first (the oldest such note goes when full).
    mutating func noteOrigin(root: [UInt8], peer: PeerAddress, nowMs: UInt64) {
        guard origins[root] == nil else { return }
        if origins.count >= Self.originCapacity,
            let oldest = origins.min(by: { a, b in
                a.value.atMs != b.value.atMs ? a.value.atMs < b.value.atMs : a.key.lexicographicallyPrecedes(b.key)
            })
        {
            origins[oldest.key] = nil
        }
        origins[root] = (peer, nowMs)
    }

    /// Would `peer`'s answer budget let `count` blocks go now? (Asked on a copy: nothing taken.)
    func mayAnswer(_ peer: PeerAddress, count: Int, nowMs: UInt64) -> Bool {
        guard var b = answerBudget[peer] else { return count <= Int(Self.answersPerSecond) }
        return b.take(Double(count), nowMs: nowMs)
    }

    /// Takes one block from `peer`'s answer budget (a new peer's bucket only while fewer than
    /// `originCapacity` are not full).
    mutating func takeAnswer(_ peer: PeerAddress, nowMs: UInt64) -> Bool {
        if answerBudget[peer] == nil {
            if answerBudget.count >= Self.originCapacity {
                answerBudget = answerBudget.filter {
                    var b = $0.value; return !b.isFull(nowMs: nowMs)
                }
            }
            guard answerBudget.count < Self.originCapacity else { return false }
            answerBudget[peer] = TokenBucket(rate: Self.answersPerSecond, burst: Self.answersPerSecond, nowMs: nowMs)
        }
        return answerBudget[peer]!.take(1, nowMs: nowMs)
    }

    /// Keeps `peer`'s waiting ask of block `index` (true), unless the tables are full.
    mutating func keepWaiting(root: [UInt8], index: Int, peer: PeerAddress, nowMs: UInt64) -> Bool {
        if waits[root]?.contains(where: { $0.peer == peer && $0.index == index }) == true { return true }
        guard waitTotal < Self.waitCapacity, waitCount[peer, default: 0] < Self.waitsPerPeer else {
            stats.waitsRefused += 1
            return false
        }
        waits[root, default: []].append(.init(peer: peer, index: index, atMs: nowMs))
        waitCount[peer, default: 0] += 1
        waitTotal += 1
        stats.waitsKept += 1
        return true
    }

    /// One waiting ask of `peer`'s is gone (answered, expired or refused): the counts follow.
    mutating func forgetWait(_ peer: PeerAddress) {
        waitTotal -= 1
        waitCount[peer, default: 1] -= 1
        if waitCount[peer]! <= 0 { waitCount[peer] = nil }
    }
}

extension PictureFetches: PeerState {
    /// A peer given up on: its waiting asks go (nothing is sent to it), and so does what each
    /// fetch holds of it (its asks, asked again of others at the next pump; its misses; being
    /// the origin), and the posts it sent us first. Kept: its answer budget.
    mutating func forget(_ peer: PeerAddress) {
        if let n = waitCount.removeValue(forKey: peer) {
            waitTotal -= n
            for (root, list) in waits where list.contains(where: { $0.peer == peer }) {
                let left = list.filter { $0.peer != peer }
                waits[root] = left.isEmpty ? nil : left
            }
        }
        for (root, f) in fetches where f.holds(peer) {
            var f = f
            f.asked = f.asked.filter { $0.value.peer != peer }
            f.askedBefore = f.askedBefore.compactMapValues { list in
                let left = list.filter { $0 != peer }
                return left.isEmpty ? nil : left
            }
            f.misses[peer] = nil
            if f.origin == peer { f.origin = nil }
            fetches[root] = f
        }
        if origins.values.contains(where: { $0.peer == peer }) { origins = origins.filter { $0.value.peer != peer } }
    }
}

/// Its prompt work is `busy` (above); its due work at a tick is `pumpPictures`.
extension PictureFetches: TimedPart {}

extension PictureFetches.Fetch {
    /// Does this fetch hold anything about `peer`?
    func holds(_ peer: PeerAddress) -> Bool {
        origin == peer || misses[peer] != nil || asked.values.contains { $0.peer == peer }
            || askedBefore.values.contains { $0.contains(peer) }
    }
}

/// Counters of the picture layer (`stats`: `pictures.*`).
public struct PictureStats: Sendable, Equatable {
    public var blocksIn = 0, blocksOut = 0, wantsIn = 0, fetchesStarted = 0, fetchesDone = 0, fetchesAbandoned = 0
    public var unrequested = 0, wrongHash = 0, refused = 0, answersLimited = 0, waitsKept = 0, waitsExpired = 0, waitsRefused = 0

    public var pairs: [(String, Int)] {
        [
            ("pictures.blocks_in", blocksIn), ("pictures.blocks_out", blocksOut), ("pictures.wants_in", wantsIn),
            ("pictures.fetches_started", fetchesStarted), ("pictures.fetches_done", fetchesDone),
            ("pictures.fetches_abandoned", fetchesAbandoned), ("drop.unrequestedBlock", unrequested), ("drop.wrongBlockHash", wrongHash),
            ("drop.blockRefused", refused), ("drop.blockAnswersLimited", answersLimited), ("pictures.waits_kept", waitsKept),
            ("pictures.waits_expired", waitsExpired), ("drop.blockWaitsFull", waitsRefused)
        ]
    }
}

/// What the picture part asks of the engine, in order: a message to a peer (sealed and sent
/// by the engine), or a directive for the node (a want to answer from its store, a checked
/// block to keep, a picture complete).
enum PictureAction {
    case send(Message, to: PeerAddress)
    case node(GossipDirective)
}

// The picture part's inputs (PROTOCOL §10b). Each reads the engine only through what it is
// handed: the links, and whether a peer may be sent a pack's pictures (`mayHave`: a proven
// link whose cell lets it hold the pack's ops, §12). Each returns what the engine carries out.
extension PictureFetches {
    /// A want from a peer (`proven`: not a stranger): the blocks of a picture we are fetching
    /// and lack are kept waiting when the peer asked with `wait` (bounded), else answered
    /// empty at once; the others go to the node, which answers what it holds (`answer`),
    /// within the peer's answer budget (a waiting ask past it waits for the budget).
    mutating func want(
        root: [UInt8], indexes: [Int], wait: Bool, from: PeerAddress, proven: Bool, nowMs: UInt64,
        mayHave: (PackID, PeerAddress) -> Bool
    ) -> [PictureAction] {
        stats.wantsIn += 1
        guard proven else { stats.refused += 1; return [] }
        var acts: [PictureAction] = []
        var rest = Array(indexes.prefix(Self.maxWantIndexes))
        if let f = fetches[root] {
            guard mayHave(f.pack, from) else { stats.refused += 1; return [] }
            let lacking = rest.filter { !f.assembly.have.contains($0) }
            rest.removeAll { !f.assembly.have.contains($0) }
            var empty: [Int] = []
            for i in lacking {
                if wait && i < f.assembly.ref.blockCount && keepWaiting(root: root, index: i, peer: from, nowMs: nowMs) { continue }
                empty.append(i)
            }
            answerEmpty(root: root, indexes: empty, to: from, nowMs: nowMs, into: &acts)
        }
        // Held blocks past the peer's answer budget: a waiting ask is kept and answered when
        // the budget allows (`sweepWaits`) rather than dropped into its ask's timeout.
        if wait && !rest.isEmpty && !mayAnswer(from, count: rest.count, nowMs: nowMs) {
            rest.removeAll { keepWaiting(root: root, index: $0, peer: from, nowMs: nowMs) }
        }
        if !rest.isEmpty { acts.append(.node(.blocksWanted(root: root, indexes: rest, peer: from))) }
        return acts
    }

    /// The node's answer to `blocksWanted`: each block it holds to `to`, if `to` may hold
    /// `pack` and within its answer budget.
    mutating func answer(
        root: [UInt8], pack: PackID, blocks: [(index: Int, data: [UInt8])], to: PeerAddress, nowMs: UInt64, mayHave: Bool
    ) -> [PictureAction] {
        guard mayHave else { stats.refused += 1; return [] }
        var acts: [PictureAction] = []
        for b in blocks.prefix(Self.maxWantIndexes) where b.data.count <= PictureBlocks.maxBlockBytes {
            guard takeAnswer(to, nowMs: nowMs) else { stats.answersLimited += 1; break }
            stats.blocksOut += 1
            acts.append(.send(.block(root: root, index: b.index, data: b.data), to: to))
        }
        return acts
    }

    /// Empty answers (not held) to `to`, within its answer budget.
    mutating func answerEmpty(root: [UInt8], indexes: [Int], to: PeerAddress, nowMs: UInt64, into acts: inout [PictureAction]) {
        for i in indexes.prefix(Self.maxWantIndexes) {
            guard takeAnswer(to, nowMs: nowMs) else { stats.answersLimited += 1; break }
            acts.append(.send(.block(root: root, index: i, data: []), to: to))
        }
    }

    /// A block (or an empty answer: not held there) from `from`.
    mutating func block(
        root: [UInt8], index: Int, data: [UInt8], from: PeerAddress, nowMs: UInt64, links: [PeerAddress],
        mayHave: (PackID, PeerAddress) -> Bool
    ) -> [PictureAction] {
        guard var f = fetches[root] else { stats.unrequested += 1; return [] }
        if let ask = f.asked[index], ask.peer == from {
            f.asked[index] = nil
            // A waiting ask's answer time includes the origin's own fetch: not a link's speed.
            if !ask.wait { f.rttMs = f.rttMs * 0.875 + Double(nowMs &- ask.atMs) * 0.125 }
        } else if f.askedBefore[index]?.contains(from) == true {
            // A late answer to an ask that timed out: still good unless held already.
            f.askedBefore[index]?.removeAll { $0 == from }
            if data.isEmpty || f.assembly.have.contains(index) { fetches[root] = f; return [] }
            if let other = f.asked[index] { f.asked[index] = nil; f.askedBefore[index, default: []].append(other.peer) }
        } else {
            stats.unrequested += 1
            return []
        }
        if data.isEmpty {
            // Not held there (yet): asked again at the next tick, of the peers with fewest misses.
            f.misses[from, default: 0] += 1
            fetches[root] = f
            return []
        }
        var acts: [PictureAction] = []
        switch f.assembly.offer(index: index, data: data) {
        case .accepted:
            stats.blocksIn += 1
            f.lastProgressMs = nowMs
            f.misses[from] = nil
            acts.append(.node(.blockReceived(root: root, pack: f.pack, index: index, data: data)))
            answerWaiting(root: root, pack: f.pack, index: index, data: data, nowMs: nowMs, mayHave: mayHave, into: &acts)
        case .duplicate: break
        case .unexpected: stats.unrequested += 1
        case .wrongHash:
            stats.wrongHash += 1
            f.misses[from, default: 0] += 4  // a peer that lies is asked last
        }
        if f.assembly.isComplete {
            fetches[root] = nil
            stats.fetchesDone += 1
            acts.append(.node(.pictureComplete(root: root, pack: f.pack)))
            return acts
        }
        fetches[root] = f
        pump(nowMs: nowMs, links: links, mayHave: mayHave, into: &acts)
        return acts
    }

    /// Sends a block that just arrived and checked to the peers waiting for it. A peer past
    /// its answer budget keeps waiting: it is answered from the store when the budget allows
    /// (`sweepWaits`), not dropped into its ask's timeout.
    private mutating func answerWaiting(
        root: [UInt8], pack: PackID, index: Int, data: [UInt8], nowMs: UInt64, mayHave: (PackID, PeerAddress) -> Bool,
        into acts: inout [PictureAction]
    ) {
        guard let list = waits[root], list.contains(where: { $0.index == index }) else { return }
        var left: [Waiter] = []
        for w in list {
            guard w.index == index else { left.append(w); continue }
            guard mayHave(pack, w.peer) else {
                forgetWait(w.peer)
                stats.refused += 1
                continue
            }
            guard takeAnswer(w.peer, nowMs: nowMs) else { left.append(w); continue }
            forgetWait(w.peer)
            stats.blocksOut += 1
            acts.append(.send(.block(root: root, index: index, data: data), to: w.peer))
        }
        waits[root] = left.isEmpty ? nil : left
    }

    /// Waiting asks at each pump: those whose block is here now (they waited for an answer
    /// budget, or the picture is whole) go to the node to be answered from the store while
    /// the peer's budget allows; those older than `waitMs` whose block is not here are
    /// answered empty, so their askers go elsewhere at once; past `waitMs`, asks still
    /// waiting for a budget are dropped.
    private mutating func sweepWaits(nowMs: UInt64, into acts: inout [PictureAction]) {
        guard waitTotal > 0 else { return }
        for root in waits.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            let fetch = fetches[root]
            var kept: [Waiter] = [], ready: [PeerAddress: [Int]] = [:]
            for w in waits[root]! {
                // A picture no longer fetched is whole here (a cancelled one has no waits).
                let held = fetch.map { $0.assembly.have.contains(w.index) } ?? true
                let expired = nowMs >= w.atMs &+ Self.waitMs
                if held && mayAnswer(w.peer, count: (ready[w.peer]?.count ?? 0) + 1, nowMs: nowMs) {
                    ready[w.peer, default: []].append(w.index)
                    forgetWait(w.peer)
                } else if expired {
                    forgetWait(w.peer)
                    stats.waitsExpired += 1
                    if !held { answerEmpty(root: root, indexes: [w.index], to: w.peer, nowMs: nowMs, into: &acts) }
                } else {
                    kept.append(w)
                }
            }
            waits[root] = kept.isEmpty ? nil : kept
            for (peer, indexes) in ready.sorted(by: { $0.key < $1.key }) {
                for start in stride(from: 0, to: indexes.count, by: Self.maxWantIndexes) {
                    let part = Array(indexes[start..<min(indexes.count, start + Self.maxWantIndexes)])
                    acts.append(.node(.blocksWanted(root: root, indexes: part, peer: peer)))
                }
            }
        }
    }

    /// The part's due work at a tick (`EnginePart.pictures`), and after each block that came:
    /// asks for what each fetch lacks. Timed-out asks go again to another peer. The post's
    /// origin (it admitted the post before us, so waiting asks follow the post's path back to
    /// its author and never loop) is asked with `wait` for up to `inFlightPerFetch` blocks:
    /// the picture streams down that path as each hop gets it, each block crossing each link
    /// once. Without an origin, or past `originMissLimit` misses of it, the blocks are spread
    /// over the links with the fewest misses, a few each and at most `inFlightPerPeer` each.
    mutating func pump(nowMs: UInt64, links: [PeerAddress], mayHave: (PackID, PeerAddress) -> Bool, into acts: inout [PictureAction]) {
        sweepWaits(nowMs: nowMs, into: &acts)
        var inFlight: [PeerAddress: Int] = [:]
        for f in fetches.values { for a in f.asked.values where !a.wait { inFlight[a.peer, default: 0] += 1 } }
        for root in fetches.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            guard var f = fetches[root] else { continue }
            if nowMs >= f.lastProgressMs &+ Self.giveUpMs {
                fetches[root] = nil
                stats.fetchesAbandoned += 1
                continue
            }
            for (i, a) in f.asked where nowMs >= a.atMs &+ f.timeout(a) {
                f.asked[i] = nil
                if f.askedBefore[i, default: []].count < Self.askHistory { f.askedBefore[i, default: []].append(a.peer) }
                f.misses[a.peer, default: 0] += 1
                if !a.wait { inFlight[a.peer, default: 1] -= 1 }
            }
            var waiting: PeerAddress?
            if let o = f.origin, f.misses[o, default: 0] < Self.originMissLimit, mayHave(f.pack, o) { waiting = o }
            let room = (waiting != nil ? Self.inFlightWaiting : Self.inFlightPerFetch) - f.asked.count
            // Asks go `maxWantIndexes` at a time while others are in flight: one `BlockWant` per
            // block that arrived cost the answerer a store read each (the poster read 800 times).
            guard room >= Self.maxWantIndexes || (room > 0 && f.asked.isEmpty) else {
                fetches[root] = f
                continue
            }
            var wanted = f.assembly.next(limit: room, excluding: Set(f.asked.keys))
            var perPeer: [PeerAddress: [Int]] = [:]
            if let o = waiting {
                perPeer[o] = wanted
                wanted = []
            }
            var candidates = wanted.isEmpty ? [] : links.filter { $0 != waiting && mayHave(f.pack, $0) }
            if let o = f.origin, !wanted.isEmpty, o != waiting, !candidates.contains(o), mayHave(f.pack, o) { candidates.append(o) }
            candidates.sort { a, b in
                let ma = f.misses[a] ?? 0, mb = f.misses[b] ?? 0
                if ma != mb { return ma < mb }
                if (a == f.origin) != (b == f.origin) { return a == f.origin }
                return a < b
            }
            // Spread the blocks over the candidates, a few each, so several peers serve at once.
            var progress = true
            while !wanted.isEmpty && progress {
                progress = false
                for c in candidates where !wanted.isEmpty && inFlight[c, default: 0] < Self.inFlightPerPeer {
                    let take = min(2, wanted.count, Self.inFlightPerPeer - inFlight[c, default: 0])
                    perPeer[c, default: []] += wanted.prefix(take)
                    wanted.removeFirst(take)
                    inFlight[c, default: 0] += take
                    progress = true
                }
            }
            for (peer, indexes) in perPeer.sorted(by: { $0.key < $1.key }) where !indexes.isEmpty {
                let wait = peer == waiting
                for i in indexes { f.asked[i] = (peer, nowMs, wait) }
                for start in stride(from: 0, to: indexes.count, by: Self.maxWantIndexes) {
                    let part = Array(indexes[start..<min(indexes.count, start + Self.maxWantIndexes)])
                    acts.append(.send(.blockWant(root: root, indexes: part, wait: wait), to: peer))
                }
            }
            fetches[root] = f
        }
    }
}

extension GossipEngine {
    /// Starts fetching the picture of a post in `pack` (the node calls it when the post first
    /// arrives, unless hidden or blocked); `known`: blocks the node holds already (checked
    /// again). Does nothing for a picture fetched already.
    public mutating func fetchPicture(
        _ ref: PictureRef, pack: PackID, known: [Int: [UInt8]] = [:], nowMs: UInt64, replica: Replica
    ) -> [GossipDirective] {
        guard pictures.start(ref, pack: pack, known: known, nowMs: nowMs) else { return [] }
        var out: [GossipDirective] = []
        pumpPictures(nowMs: nowMs, replica: replica, into: &out)
        finish(nowMs: nowMs, into: &out)
        return out
    }

    /// Stops fetching a picture (its post was hidden, its pack deleted); asks kept waiting for
    /// its blocks are dropped (their askers time out).
    public mutating func cancelPicture(root: [UInt8]) { pictures.cancel(root: root) }

    /// Stops fetching the pictures of a pack that is gone (deleted or expired, §6).
    public mutating func cancelPictures(pack: PackID) {
        for (root, f) in pictures.fetches where f.pack == pack { pictures.cancel(root: root) }
    }

    /// Roots being fetched (for tests and `stats`).
    public var picturesFetching: [[UInt8]] { Array(pictures.fetches.keys) }

    /// The node's answer to `blocksWanted`: sends each block it holds to `to`, if `to` may
    /// hold `pack` (the fence rule of ops, §12) and within its answer budget.
    public mutating func answerBlocks(
        root: [UInt8], pack: PackID, blocks: [(index: Int, data: [UInt8])], to: PeerAddress, nowMs: UInt64, replica: Replica
    ) -> [GossipDirective] {
        let mayHave = mayHavePicture(pack, peer: to, replica: replica)
        var out: [GossipDirective] = []
        carry(pictures.answer(root: root, pack: pack, blocks: blocks, to: to, nowMs: nowMs, mayHave: mayHave), nowMs: nowMs, into: &out)
        finish(nowMs: nowMs, into: &out)
        return out
    }

    /// The node holds no picture with this root: each block is answered empty (not held), to
    /// a peer that may ask (proven), within its answer budget.
    public mutating func answerNotHeld(root: [UInt8], indexes: [Int], to: PeerAddress, nowMs: UInt64) -> [GossipDirective] {
        var out: [GossipDirective] = []
        guard isProven(to) else { return out }
        var acts: [PictureAction] = []
        pictures.answerEmpty(root: root, indexes: indexes, to: to, nowMs: nowMs, into: &acts)
        carry(acts, nowMs: nowMs, into: &out)
        finish(nowMs: nowMs, into: &out)
        return out
    }

    /// May `peer` be sent the pictures of `pack`? A proven link (§9, "Need to know") whose
    /// announced cell would let it hold the pack's ops (§12).
    func mayHavePicture(_ pack: PackID, peer: PeerAddress, replica: Replica) -> Bool {
        guard isProven(peer), let scope = replica.scope(pack), let theirs = peerInfo(peer) else { return false }
        return mayReceive(theirs, pack: scope, isGenesis: false)
    }

    /// A post with a picture came from `from`: it is the first peer asked for its blocks.
    mutating func notePictureOrigin(_ op: SignedOp, from: PeerAddress, nowMs: UInt64) {
        guard case .post(let p) = op.body.kind, let ref = p.picture else { return }
        pictures.noteOrigin(root: ref.root, peer: from, nowMs: nowMs)
    }

    mutating func onBlockWant(
        root: [UInt8], indexes: [Int], wait: Bool, from: PeerAddress, nowMs: UInt64, replica: Replica,
        into out: inout [GossipDirective]
    ) {
        var part = takePictures()
        let acts = part.want(root: root, indexes: indexes, wait: wait, from: from, proven: isProven(from), nowMs: nowMs) {
            mayHavePicture($0, peer: $1, replica: replica)
        }
        pictures = part
        carry(acts, nowMs: nowMs, into: &out)
    }

    mutating func onBlock(
        root: [UInt8], index: Int, data: [UInt8], from: PeerAddress, nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]
    ) {
        var part = takePictures()
        let acts = part.block(root: root, index: index, data: data, from: from, nowMs: nowMs, links: links) {
            mayHavePicture($0, peer: $1, replica: replica)
        }
        pictures = part
        carry(acts, nowMs: nowMs, into: &out)
    }

    /// The picture part's due work at a tick (`EnginePart.pictures`): nothing while it fetches
    /// nothing and keeps no ask waiting.
    mutating func pumpPictures(nowMs: UInt64, replica: Replica, into out: inout [GossipDirective]) {
        guard pictures.busy else { return }
        var part = takePictures()
        var acts: [PictureAction] = []
        part.pump(nowMs: nowMs, links: links, mayHave: { mayHavePicture($0, peer: $1, replica: replica) }, into: &acts)
        pictures = part
        carry(acts, nowMs: nowMs, into: &out)
    }

    /// The picture part, taken out of the engine for one of its inputs (the caller puts it
    /// back), so that it may ask the engine (`mayHavePicture`) while it changes, and its
    /// tables stay uniquely held (no copy on write).
    private mutating func takePictures() -> PictureFetches {
        defer { pictures = PictureFetches() }
        return pictures
    }

    /// Carries out what the picture part asked, in its order.
    private mutating func carry(_ acts: [PictureAction], nowMs: UInt64, into out: inout [GossipDirective]) {
        for a in acts {
            switch a {
            case .send(let m, let to): send(m, to: to, nowMs: nowMs, into: &out)
            case .node(let d): out.append(d)
            }
        }
    }
}
