import SkwadCrypto
import SkwadModel

/// Draws the op schedule of a scenario and signs every op with real keys: each node has a
/// master secret and acts in each pack under the pseudonym derived from it (DESIGN §2);
/// admin packs are signed by the scenario's admin key. Deterministic in the seed.
struct WorkloadGenerator {
    enum Kind: Int { case adminPack = 0, pack, post, comment, vote }

    let s: Scenario
    let seed: UInt64
    let geo: Geography
    let churn: ChurnSchedule
    var rng: SimRandom
    let adminKey: SigningKeyPair

    var ops: [SimOp] = []
    var packs: [SimPack] = []
    var memberships: [[Membership]]
    var skipped = 0

    private var clocks: [HybridClock]
    private var keys: [Int64: SigningKeyPair] = [:]
    private var stamps: [Int64: UInt64] = [:]
    private var nonces: [[UInt8]] = []
    /// Nodes with at least one membership (candidates to post), and a flag per node.
    private var active: [Int32] = []
    private var isActive: [Bool]
    /// Per pack: its posts; its posts and comments (vote targets); comments per post.
    private var posts: [[OpRef]] = []
    private var votables: [[OpRef]] = []
    private var commentsOf: [OpRef: [OpRef]] = [:]

    init(scenario: Scenario, seed: UInt64, geography: Geography, churn: ChurnSchedule) {
        s = scenario; self.seed = seed; geo = geography; self.churn = churn
        rng = SimRandom.stream(seed, 4)
        var adminRng = SimRandom.stream(seed, 5)
        adminKey = (try? SigningKeyPair(seed: adminRng.bytes(32)))!
        memberships = Array(repeating: [], count: scenario.nodes.count)
        clocks = Array(repeating: HybridClock(), count: scenario.nodes.count)
        isActive = Array(repeating: false, count: scenario.nodes.count)
    }

    mutating func run() {
        var events: [(t: UInt64, kind: Kind)] = []
        for _ in 0..<s.packs.admin { events.append((0, .adminPack)) }
        for _ in 0..<s.packs.initial { events.append((UInt64(rng.below(Int(s.packs.initialWindowMs) + 1)), .pack)) }
        let w = s.workload
        let n = Double(s.nodes.count)
        for (rate, kind) in [
            (w.packsPerNodeHour, Kind.pack), (w.postsPerNodeHour, .post), (w.commentsPerNodeHour, .comment), (w.votesPerNodeHour, .vote)
        ] where rate > 0 {
            let meanGap = 3_600_000 / (rate * n)
            var t = Double(w.startMs) + rng.exponential(mean: meanGap)
            while t < Double(w.endMs) {
                events.append((UInt64(t), kind))
                t += rng.exponential(mean: meanGap)
            }
        }
        events = events.enumerated().sorted { a, b in
            (a.element.t, a.element.kind.rawValue, a.offset) < (b.element.t, b.element.kind.rawValue, b.offset)
        }.map(\.element)
        if w.maxOps > 0 && events.count > w.maxOps {
            skipped += events.count - w.maxOps
            events.removeLast(events.count - w.maxOps)
        }
        var adminCount = 0
        for e in events {
            let made: Bool
            switch e.kind {
            case .adminPack: made = makeAdminPack(at: e.t, number: adminCount); adminCount += 1
            case .pack: made = makePack(at: e.t)
            case .post, .comment, .vote: made = makeContent(e.kind, at: e.t)
            }
            if !made { skipped += 1 }
        }
    }

    // MARK: - packs

    private mutating func randomUpNode(at t: UInt64, from candidates: [Int32]? = nil) -> Int? {
        let count = candidates?.count ?? s.nodes.count
        guard count > 0 else { return nil }
        for _ in 0..<32 {
            let i = rng.below(count)
            let node = candidates.map { Int($0[i]) } ?? i
            if churn.isUp(node, at: t) { return node }
        }
        return nil
    }

    private mutating func makePack(at t: UInt64) -> Bool {
        guard let origin = randomUpNode(at: t) else { return false }
        let fence: Geofence? =
            s.packs.global
            ? nil
            : Geofence(center: geo.locations[origin], radiusMeters: rng.uniform(s.packs.radiusMinMeters, s.packs.radiusMaxMeters)).asEncoded
        let locked = fence != nil && rng.chance(s.packs.lockedFraction)
        return addPack(at: t, origin: origin, fence: fence, locked: locked, admin: false, name: "pack \(packs.count + 1)")
    }

    private mutating func makeAdminPack(at t: UInt64, number: Int) -> Bool {
        let center: GeoPoint
        if !s.campuses.isEmpty {
            let c = s.campuses[number % s.campuses.count]
            center = Geography.point(c.lat, c.lon)
        } else {
            guard let any = randomUpNode(at: t) else { return false }
            center = geo.locations[any]
        }
        let fence: Geofence? = s.packs.global ? nil : Geofence(center: center, radiusMeters: s.packs.adminRadiusMeters).asEncoded
        let members = eligible(fence: fence, locked: false)
        guard let origin = randomUpNode(at: t, from: members) else { return false }
        return addPack(at: t, origin: origin, fence: fence, locked: false, admin: true, name: "admin \(number + 1)", members: members)
    }

    private mutating func eligible(fence: Geofence?, locked: Bool) -> [Int32] {
        guard let fence else { return (0..<s.nodes.count).map(Int32.init) }
        var inside: [Int32] = []
        var isIn = [Bool](repeating: false, count: s.nodes.count)
        for i in 0..<s.nodes.count where geo.inside(i, fence) { inside.append(Int32(i)); isIn[i] = true }
        if !locked && s.packs.remoteSubscribers > 0 && inside.count < s.nodes.count {
            var added = 0, tries = 0
            while added < s.packs.remoteSubscribers && tries < s.packs.remoteSubscribers * 20 {
                tries += 1
                let i = rng.below(s.nodes.count)
                if !isIn[i] { isIn[i] = true; inside.append(Int32(i)); added += 1 }
            }
            inside.sort()
        }
        return inside
    }

    private mutating func addPack(
        at t: UInt64, origin: Int, fence: Geofence?, locked: Bool, admin: Bool, name: String,
        members given: [Int32]? = nil
    ) -> Bool {
        let members = given ?? eligible(fence: fence, locked: locked)
        let packIndex = Int32(packs.count)
        let nonce = rng.bytes(16)
        let create = CreatePack(name: name, tags: ["sim"], color: "", fence: fence, locked: locked, nonce: nonce, powBits: s.packs.powBits)
        let key = admin ? adminKey : pseudonym(origin, nonce: nonce, pack: packIndex)
        let stamp = stampFor(key, nonce: nonce, cacheKey: admin ? -1 - Int64(packIndex) : Self.keyID(origin, packIndex))
        let body = OpBody(
            packID: nil, author: key.publicKey, hlc: clocks[origin].tick(physicalMs: s.epochMs + t),
            stamp: stamp, kind: .createPack(create))
        guard let op = try? SignedOp.sign(body, with: key) else { return false }
        nonces.append(nonce)
        posts.append([]); votables.append([])
        packs.append(SimPack(genesis: OpRef(ops.count), fence: fence, locked: locked, isAdmin: admin, members: members, ops: []))
        for (pos, m) in members.enumerated() {
            memberships[Int(m)].append(Membership(pack: packIndex, position: Int32(pos)))
            if !isActive[Int(m)] { isActive[Int(m)] = true; active.append(m) }
        }
        append(op, at: t, origin: origin, pack: packIndex)
        return true
    }

    // MARK: - content

    private static let words = [
        "free", "pizza", "library", "quiet", "study", "room", "coffee", "line", "bus", "late",
        "concert", "tonight", "lost", "keys", "found", "cat", "rain", "again", "exam", "moved",
        "gym", "open", "lecture", "cancelled", "party", "north", "lawn", "bikes", "sale", "books"
    ]

    private mutating func text(_ minWords: Int, _ maxWords: Int) -> String {
        let n = minWords + rng.below(maxWords - minWords + 1)
        return (0..<n).map { _ in Self.words[rng.below(Self.words.count)] }.joined(separator: " ")
    }

    private mutating func makeContent(_ kind: Kind, at t: UInt64) -> Bool {
        guard let origin = randomUpNode(at: t, from: active) else { return false }
        let ms = memberships[origin]
        guard !ms.isEmpty else { return false }
        let pack = ms[rng.below(ms.count)].pack
        let p = Int(pack)
        var kind = kind
        if kind == .comment && posts[p].isEmpty { kind = .post }
        if kind == .vote && votables[p].isEmpty { kind = .post }
        let opKind: OpKind
        switch kind {
        case .comment:
            let post = posts[p][rng.below(posts[p].count)]
            let earlier = commentsOf[post] ?? []
            let parent: OpRef? = !earlier.isEmpty && rng.chance(0.3) ? earlier[rng.below(earlier.count)] : nil
            opKind = .comment(Comment(post: ops[Int(post)].op.id, parent: parent.map { ops[Int($0)].op.id }, body: text(3, 30)))
        case .vote:
            let target = votables[p][rng.below(votables[p].count)]
            opKind = .vote(Vote(target: ops[Int(target)].op.id, value: rng.chance(0.8) ? 1 : -1))
        default:
            opKind = .post(Post(title: text(2, 8), body: text(5, 60), tags: ["sim"]))
        }
        let nonce = nonces[p]
        let key = pseudonym(origin, nonce: nonce, pack: pack)
        let location: String? = packs[p].locked ? geo.cells[origin] : nil
        let body = OpBody(
            packID: ops[Int(packs[p].genesis)].op.id, author: key.publicKey,
            hlc: clocks[origin].tick(physicalMs: s.epochMs + t), location: location,
            stamp: stampFor(key, nonce: nonce, cacheKey: Self.keyID(origin, pack)), kind: opKind)
        guard let op = try? SignedOp.sign(body, with: key) else { return false }
        let ref = OpRef(ops.count)
        switch opKind {
        case .post: posts[p].append(ref); votables[p].append(ref)
        case .comment(let c):
            votables[p].append(ref)
            if let post = posts[p].first(where: { ops[Int($0)].op.id == c.post }) { commentsOf[post, default: []].append(ref) }
        default: break
        }
        append(op, at: t, origin: origin, pack: pack)
        return true
    }

    // MARK: - keys and ops

    private static func keyID(_ node: Int, _ pack: Int32) -> Int64 { Int64(node) << 32 | Int64(pack) }

    private mutating func pseudonym(_ node: Int, nonce: [UInt8], pack: Int32) -> SigningKeyPair {
        let id = Self.keyID(node, pack)
        if let k = keys[id] { return k }
        var masterRng = SimRandom.stream(seed, 6, UInt64(node))
        let master = (try? MasterSecret(bytes: masterRng.bytes(32)))!
        let k = master.pseudonym(genesisNonce: nonce)
        keys[id] = k
        return k
    }

    private mutating func stampFor(_ key: SigningKeyPair, nonce: [UInt8], cacheKey: Int64) -> UInt64 {
        guard s.packs.powBits > 0 else { return 0 }
        if let st = stamps[cacheKey] { return st }
        let st = ProofOfWork.mint(genesisNonce: nonce, author: key.publicKey.bytes, bits: Int(s.packs.powBits))
        stamps[cacheKey] = st
        return st
    }

    private mutating func append(_ op: SignedOp, at t: UInt64, origin: Int, pack: Int32) {
        let ref = OpRef(ops.count)
        let local = Int32(packs[Int(pack)].ops.count)
        packs[Int(pack)].ops.append(ref)
        ops.append(SimOp(op: op, envelope: op.envelope.serialized(), createdMs: t, origin: Int32(origin), pack: pack, local: local))
    }
}
