import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadStore

/// What `edit` changes: a pack (Alpha or admin) or one's own post or comment. The verb is
/// one; the node decides which by resolving the reference (NodeModeration.edit).
public struct EditRequest: Sendable, Equatable {
    /// A comment's new text, or a post's new body.
    public var text: String?
    public var title: String?
    public var body: String?
    public var name: String?
    public var color: String?
    public var tags: [String]?
    public init(
        text: String? = nil, title: String? = nil, body: String? = nil, name: String? = nil, color: String? = nil, tags: [String]? = nil
    ) {
        self.text = text; self.title = title; self.body = body; self.name = name; self.color = color; self.tags = tags
    }
    var changesPack: Bool { name != nil || color != nil || tags != nil }
    var changesPost: Bool { text != nil || title != nil || body != nil }
}

/// What `blocks` lists.
public struct BlockList: Sendable {
    public let authors: [(key: PublicKey, pack: String?)]
    public let packs: [(id: PackID, name: String?)]
}

/// Moderation (hide, unhide, pack edits, the log), edits of one's own posts and comments,
/// reports sealed to moderators, and the user's local blocks and mutes (issue 11, part A).
extension Node {
    // MARK: moderators

    /// The keys this node moderates `pack` with: its pseudonym when it is the Alpha, and its
    /// admin key (admins moderate every pack).
    func moderatorKeys(_ pack: PackState) -> [SigningKeyPair] {
        var out: [SigningKeyPair] = []
        if let k = key(for: pack.id), k.publicKey == pack.alpha { out.append(k) }
        if let admin, !out.contains(where: { $0.publicKey == admin.publicKey }) { out.append(admin) }
        return out
    }

    public func isModerator(of ref: String) throws -> Bool {
        let p = try resolvePack(ref)
        guard let state = replica.pack(p.id) else { return false }
        return !moderatorKeys(state).isEmpty
    }

    /// Signs and commits a moderation op with `key`: the pack's own pseudonym goes through
    /// `sign` (its stamp is kept); an admin key acting in someone else's pack mints a stamp
    /// for that pack (2^16 hashes, once per op; cheap next to a human's pace).
    func commitModeration(_ kind: OpKind, in packID: PackID, key: SigningKeyPair) throws -> OpID {
        if key.publicKey == self.key(for: packID)?.publicKey {
            let (op, changes) = try sign(kind, in: packID)
            try commit(op, with: changes)
            return op.id
        }
        let nowMs = now()
        guard let pack = replica.pack(packID), replica.isLive(packID, nowMs: nowMs) else {
            throw NodeError("that pack is gone (expired or deleted)")
        }
        try takeLocalBudget(key.publicKey, nowMs: nowMs)
        let stamp = ProofOfWork.mint(
            genesisNonce: pack.genesis.createNonce, author: key.publicKey.bytes,
            bits: Int(replica.config.pseudonymBits(pack.create.powBits)))
        let body = OpBody(packID: packID, author: key.publicKey, hlc: own.clocks.tick(packID, physicalMs: nowMs), stamp: stamp, kind: kind)
        let op: SignedOp
        do { op = try SignedOp.sign(body, with: key) } catch { throw NodeError("\(error)") }
        try commit(op)
        return op.id
    }

    // MARK: hide, unhide, log

    /// Hides (or restores) a post or comment: the pack's Alpha and admins only.
    public func moderate(_ ref: String, hidden: Bool, reason: String = "") throws -> OpID {
        purgeIfDue()
        let target = try resolveOp(ref)
        guard let pack = replica.pack(target.packID) else { throw NodeError("that pack is gone") }
        guard let key = moderatorKeys(pack).first else {
            throw NodeError(
                "only the pack's Alpha and admins can \(hidden ? "hide" : "unhide"); you can report it: report \(ref) \"REASON\"")
        }
        guard reason.utf8.count <= Limits.maxReason else {
            throw NodeError("reason is \(reason.utf8.count) bytes, limit \(Limits.maxReason)")
        }
        return try commitModeration(.moderate(Moderate(target: target.id, hidden: hidden, reason: reason)), in: pack.id, key: key)
    }

    /// The pack's moderation history (hides, restores, pack edits, deletion), oldest first.
    public func moderationLog(_ ref: String) throws -> (pack: PackSummary, entries: [ModerationEntry]) {
        purgeIfDue()
        let p = try resolvePack(ref)
        return (p, replica.moderationLog(p.id))
    }

    // MARK: edit

    public enum EditOutcome: Sendable {
        case pack(PackSummary, OpID)
        case post(OpID, OpID)
    }

    /// `edit REF …`: a pack's name, colour or tags (Alpha or admin), or one's own post or
    /// comment. Decided by what `ref` resolves to and what is changed; a reference that
    /// names both a pack and a post, with changes that fit both, is refused as ambiguous.
    public func edit(_ ref: String, _ change: EditRequest) throws -> EditOutcome {
        purgeIfDue()
        guard change.changesPack || change.changesPost else {
            throw NodeError("nothing to change: edit ID \"TEXT\" (your post or comment), or edit PACK --name N --color C --tags a,b")
        }
        guard !(change.changesPack && change.changesPost) else {
            throw NodeError("--name/--color/--tags edit a pack; text, --title and --body edit a post or comment: not both at once")
        }
        let asPack = try? resolvePack(ref)
        let asOp = try? resolveOp(ref)
        if change.changesPack {
            guard let p = asPack else {
                if asOp != nil { throw NodeError("'\(ref)' is a post or comment: --name/--color/--tags edit a pack") }
                _ = try resolvePack(ref)  // its own error
                throw NodeError("no pack '\(ref)'")
            }
            return try editPack(p, change)
        }
        guard let op = asOp else {
            if asPack != nil {
                throw NodeError("'\(ref)' is a pack: give a post or comment id to edit text, or --name/--color/--tags to edit the pack")
            }
            _ = try resolveOp(ref)
            throw NodeError("no post or comment '\(ref)'")
        }
        return try editOwn(op, change)
    }

    func editPack(_ p: PackSummary, _ change: EditRequest) throws -> EditOutcome {
        guard let state = replica.pack(p.id) else { throw NodeError("that pack is gone") }
        guard let key = moderatorKeys(state).first else { throw NodeError("only the pack's Alpha (or an admin) can edit pack '\(p.name)'") }
        if let name = change.name { try PackNames.check(name) }
        // A colour from the named palette, as `create` takes it.
        var color = change.color
        if let c = color { do { color = try Palette.validate(c) } catch { throw NodeError("\(error)") } }
        let e = EditPack(name: change.name, color: color, tags: change.tags)
        // The same checks as `create` (op field limits): name 1–64 bytes, colour ≤ 16, tags.
        do { try Validation.check(OpBody(packID: p.id, author: key.publicKey, hlc: HLC(raw: 0), kind: .editPack(e))) } catch {
            throw NodeError("\(error)")
        }
        let id = try commitModeration(.editPack(e), in: p.id, key: key)
        guard let after = replica.pack(p.id) else { throw NodeError("that pack is gone") }
        return .pack(replica.summary(after, from: location), id)
    }

    func editOwn(_ target: SignedOp, _ change: EditRequest) throws -> EditOutcome {
        guard target.author == key(for: target.packID)?.publicKey else {
            throw NodeError("you can only edit your own posts and comments")
        }
        guard !replica.isDeleted(target.id) else { throw NodeError("that was deleted") }
        let e: Edit
        switch target.body.kind {
        case .post:
            e = Edit(target: target.id, title: change.title, body: change.body ?? change.text)
        case .comment:
            guard change.title == nil else { throw NodeError("a comment has no title: edit ID \"TEXT\"") }
            guard let text = change.text ?? change.body, text.contains(where: { !$0.isWhitespace }) else {
                throw NodeError("a comment cannot be empty")
            }
            e = Edit(target: target.id, body: text)
        default: throw NodeError("only posts and comments can be edited")
        }
        if let t = e.title { try Self.fits(t, Limits.maxTitle, "title") }
        if let b = e.body { try Self.fits(b, Limits.maxBody, "body") }
        let (op, changes) = try sign(.edit(e), in: target.packID)
        try commit(op, with: changes)
        return .post(target.id, op.id)
    }

    // MARK: reports

    /// Reports a post or comment to the pack's moderators: the target, the reason and this
    /// node's pseudonym (which signs them) are sealed to each of them; the op is signed by a
    /// one-off key with its own stamp, so relays and members learn neither who reported nor what.
    public func report(_ ref: String, reason: String) throws -> OpID {
        purgeIfDue()
        let target = try resolveOp(ref)
        let nowMs = now()
        guard let pack = replica.pack(target.packID), replica.isLive(pack.id, nowMs: nowMs) else {
            throw NodeError("that pack is gone (expired or deleted)")
        }
        let why = reason.trimmingWhitespaceForReport()
        guard !why.isEmpty else { throw NodeError("say why: report ID \"REASON\"") }
        guard why.utf8.count <= Limits.maxReason else { throw NodeError("reason is \(why.utf8.count) bytes, limit \(Limits.maxReason)") }
        guard let me = key(for: pack.id) else { throw NodeError("unknown pack") }
        guard !replica.isBanned(me.publicKey, in: pack) else { throw NodeError(Self.bannedMessage(pack)) }
        try takeLocalBudget(me.publicKey, nowMs: nowMs)
        let bits = Int(replica.config.pseudonymBits(pack.create.powBits))
        var changes: [LocalChange] = []
        let myStamp: UInt64
        if let s = stamps[pack.id] {
            myStamp = s
        } else {
            myStamp = ProofOfWork.mint(
                genesisNonce: pack.genesis.createNonce, author: me.publicKey.bytes, bits: bits, progress: mintProgress)
            changes.append(.stamp(pack.id, myStamp))
        }
        let carrier = SigningKeyPair.generate()
        let carrierStamp = ProofOfWork.mint(
            genesisNonce: pack.genesis.createNonce, author: carrier.publicKey.bytes, bits: bits, progress: mintProgress)
        mintProgress?(0)
        let to = Report.recipients(alpha: pack.alpha, adminKeys: replica.config.adminKeys)
        let op: SignedOp
        do {
            let content = ReportContent(target: target.id, reason: why, reporter: me.publicKey, stamp: myStamp)
            let sealed = try Report.seal(
                content, signer: me, to: to, pack: pack.id, carrier: carrier.publicKey, key: SecureRandom.bytes(AEAD.keyCount),
                nonce: SecureRandom.bytes(AEAD.nonceCount))
            let body = OpBody(
                packID: pack.id, author: carrier.publicKey, hlc: own.clocks.tick(pack.id, physicalMs: nowMs), stamp: carrierStamp,
                kind: .report(sealed))
            op = try SignedOp.sign(body, with: carrier)
        } catch { throw NodeError("\(error)") }
        try commit(op, with: changes)
        return op.id
    }

    // MARK: bans

    static func bannedMessage(_ pack: PackState) -> String {
        "you are banned in pack '\(NodeError.quote(pack.create.name))' by its moderators: what you write there is not shown"
    }

    /// Bans (or unbans) a pseudonym in a pack: the pack's Alpha and admins only. `tag` names a
    /// pseudonym that wrote in the pack or filed a report this node opened there.
    public func ban(pack ref: String, author tag: String, banned: Bool, reason: String = "") throws -> (PackSummary, PublicKey, OpID) {
        purgeIfDue()
        let p = try resolvePack(ref)
        guard let pack = replica.pack(p.id) else { throw NodeError("that pack is gone") }
        guard let key = moderatorKeys(pack).first else {
            throw NodeError("only the pack's Alpha and admins can \(banned ? "ban" : "unban"); you can block AUTHOR for yourself")
        }
        guard reason.utf8.count <= Limits.maxReason else {
            throw NodeError("reason is \(reason.utf8.count) bytes, limit \(Limits.maxReason)")
        }
        let who = try resolveMember(tag, in: pack)
        if banned, let role = replica.role(of: who, in: pack) {
            throw NodeError("that pseudonym is the pack's \(role.rawValue): moderators cannot be banned")
        }
        let id = try commitModeration(.ban(Ban(author: who, banned: banned, reason: reason)), in: pack.id, key: key)
        return (p, who, id)
    }

    /// The pseudonym of a pack whose tag (`anon·3f2a9c01`, or its hex) is `tag`: an author of an
    /// op of the pack, or a reporter of a report this node opens there.
    func resolveMember(_ tag: String, in pack: PackState) throws -> PublicKey {
        var hex = tag.lowercased()
        for prefix in ["anon·", "anon.", "anon-", "anon"] where hex.hasPrefix(prefix) { hex.removeFirst(prefix.count); break }
        guard hex.count >= 4, hex.count <= 64, hex.allSatisfy(\.isHexDigit) else {
            throw NodeError("'\(NodeError.quote(tag))' is not a pseudonym tag (as the feed shows it, e.g. anon·3f2a9c01)")
        }
        var found = Set<PublicKey>()
        for e in replica.opIDs(inPack: pack.id) {
            if let op = replica.op(e.id), op.author.hex.hasPrefix(hex), !Self.isCarrier(op) { found.insert(op.author) }
        }
        for k in moderatorKeys(pack) {
            for r in replica.reports(in: pack.id, openedWith: k) where r.reporter.hex.hasPrefix(hex) { found.insert(r.reporter) }
        }
        for k in replica.banned(in: pack.id) where k.hex.hasPrefix(hex) { found.insert(k) }
        guard found.count == 1, let key = found.first else {
            throw NodeError(
                found.isEmpty
                    ? "no pseudonym '\(NodeError.quote(tag))' in this pack"
                    : "'\(NodeError.quote(tag))' matches \(found.count) pseudonyms: type more of it")
        }
        return key
    }

    /// An op signed by a one-off key (a report or a direct message): its author is nobody's pseudonym.
    static func isCarrier(_ op: SignedOp) -> Bool {
        switch op.body.kind {
        case .report, .directMessage: true
        default: false
        }
    }

    /// Reports this node can open (as the Alpha of a pack or with an admin key), not
    /// dismissed, oldest first; in one pack or in every pack it moderates.
    public func reports(pack ref: String?) throws -> [ReportView] {
        purgeIfDue()
        let nowMs = now()
        let packs: [PackState]
        if let ref {
            let p = try resolvePack(ref)
            guard let state = replica.pack(p.id), !moderatorKeys(state).isEmpty else {
                throw NodeError("only the pack's Alpha and admins see its reports")
            }
            packs = [state]
        } else {
            packs = replica.packIDs().compactMap { replica.isLive($0, nowMs: nowMs) ? replica.pack($0) : nil }
                .filter { !moderatorKeys($0).isEmpty }
        }
        let dismissed = localModeration().dismissed
        var out: [ReportView] = [], seen = Set<OpID>()
        for p in packs {
            for k in moderatorKeys(p) {
                for r in replica.reports(in: p.id, openedWith: k) where dismissed[r.id] == nil && seen.insert(r.id).inserted {
                    out.append(r)
                }
            }
        }
        return out.sorted { $0.hlc != $1.hlc ? $0.hlc < $1.hlc : $0.id < $1.id }
    }

    /// Dismisses a report this node can open (local state: the report stays in the set).
    public func dismiss(_ ref: String) throws -> OpID {
        let hex = ref.lowercased()
        guard hex.count >= 2, hex.allSatisfy(\.isHexDigit) else { throw NodeError("'\(ref)' is not a report id (see: reports)") }
        let mine = try reports(pack: nil).filter { $0.id.hex.hasPrefix(hex) }
        guard mine.count == 1 else {
            throw NodeError(
                mine.isEmpty ? "no open report '\(ref)' (see: reports)" : "'\(ref)' matches \(mine.count) reports: type more of the id")
        }
        try setLocal(.dismissedReport, key: mine[0].id.bytes, on: true)
        features.blocks.dismissed(mine[0].id, atMs: now())
        return mine[0].id
    }

    // MARK: blocks and mutes (local)

    func localModeration() -> LocalModeration { features.blocks.current(store) }

    func setLocal(_ table: Store.LocalModerationTable, key: [UInt8], on: Bool) throws {
        do { try store.setLocalModeration(table, key: key, on: on, atMs: now()) } catch {
            stats.storeErrors += 1
            throw NodeError("\(error)")
        }
    }

    /// The pseudonym whose tag (as the feed shows it, `anon·3f2a9c01`, or its hex) is `tag`.
    func resolveAuthor(_ tag: String) throws -> PublicKey {
        var hex = tag.lowercased()
        for prefix in ["anon·", "anon.", "anon-", "anon"] where hex.hasPrefix(prefix) { hex.removeFirst(prefix.count); break }
        guard hex.count >= 4, hex.count <= 64, hex.allSatisfy(\.isHexDigit) else {
            throw NodeError("'\(String(tag.prefix(80)))' is not a pseudonym tag (as the feed shows it, e.g. anon·3f2a9c01)")
        }
        var found = Set<PublicKey>()
        for op in replica.allOps where op.author.hex.hasPrefix(hex) { found.insert(op.author) }
        guard found.count == 1, let key = found.first else {
            throw NodeError(found.isEmpty ? "no pseudonym '\(tag)' here" : "'\(tag)' matches \(found.count) pseudonyms: type more of it")
        }
        return key
    }

    /// Blocks (or unblocks) a pseudonym: its posts and comments leave your feed and threads.
    public func block(_ tag: String, on: Bool) throws -> PublicKey {
        let key = try resolveAuthor(tag)
        if on {
            for id in replica.packIDs() where isMine(key, in: id) { throw NodeError("that is you") }
        }
        try setLocal(.blockedAuthor, key: key.bytes, on: on)
        features.blocks.blocked(key, on: on, atMs: now(), store: store)
        return key
    }

    /// Mutes (or unmutes) a pack: it leaves your feed and its news is not shown; `feed PACK` still works.
    public func mute(_ ref: String, on: Bool) throws -> PackSummary {
        let p = try resolvePack(ref)
        try setLocal(.mutedPack, key: p.id.bytes, on: on)
        features.blocks.muted(p.id, on: on, atMs: now(), store: store)
        return p
    }

    public func blocks() -> BlockList {
        let m = localModeration()
        let authors = m.blocked.keys.sorted().map { k -> (key: PublicKey, pack: String?) in
            let pack = replica.allOps.first { $0.author == k }.flatMap { replica.pack($0.packID)?.create.name }
            return (k, pack)
        }
        let packs = m.muted.keys.sorted().map { ($0, replica.pack($0)?.create.name) }
        return BlockList(authors: authors, packs: packs)
    }

    /// The user's blocks and mutes applied to a feed: blocked authors always, muted packs
    /// when the feed is not of one named pack.
    func filterFeed(_ posts: [PostView], namedPack: Bool) -> [PostView] {
        let m = localModeration()
        guard !m.blocked.isEmpty || !m.muted.isEmpty else { return posts }
        return posts.filter { m.blocked[$0.author] == nil && (namedPack || m.muted[$0.pack] == nil) }
    }

    /// Blocked authors' comments leave a thread; one with visible replies stays as a placeholder.
    func filterThread(_ t: ThreadView) -> ThreadView {
        let blocked = localModeration().blocked
        guard !blocked.isEmpty else { return t }
        var out: [CommentView] = []
        for (i, c) in t.comments.enumerated() {
            guard blocked[c.author] != nil else { out.append(c); continue }
            let hasReplies = i + 1 < t.comments.count && t.comments[i + 1].depth > c.depth
            guard hasReplies else { continue }
            out.append(c.asPlaceholder())
        }
        return t.with(comments: out)
    }

    public func isBlocked(_ author: PublicKey) -> Bool { localModeration().blocked[author] != nil }

    /// News of this op is not shown: its author is blocked or its pack muted.
    func isSilenced(_ op: SignedOp) -> Bool {
        let m = localModeration()
        return m.blocked[op.author] != nil || m.muted[op.packID] != nil
    }

    /// Deletes from the store the ops the replica evicted: reports beyond rule 8a, a pack
    /// deletion a smaller one replaced (8b), the ops of a pack the quota displaced (5).
    func dropEvictedOps() {
        let gone = replica.takeEvicted()
        guard !gone.isEmpty else { return }
        do { try store.deleteOps(gone) } catch { stats.storeErrors += 1 }
    }
}

extension String {
    func trimmingWhitespaceForReport() -> String {
        var s = self[...]
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}

/// Blocks, mutes and dismissed reports as a feature of the node: the store's rows, read on
/// first use and kept in step as the user changes them.
final class Blocks: NodeFeature {
    private var cache: LocalModeration?

    func current(_ store: Store) -> LocalModeration {
        if let m = cache { return m }
        let m = (try? store.localModeration()) ?? LocalModeration()
        cache = m
        return m
    }

    /// A block just committed (or lifted).
    func blocked(_ author: PublicKey, on: Bool, atMs: UInt64, store: Store) {
        _ = current(store)
        cache?.blocked[author] = on ? atMs : nil
    }

    /// A mute just committed (or lifted).
    func muted(_ pack: PackID, on: Bool, atMs: UInt64, store: Store) {
        _ = current(store)
        cache?.muted[pack] = on ? atMs : nil
    }

    /// A report just dismissed; kept only when the rows were read already (else read with them).
    func dismissed(_ report: OpID, atMs: UInt64) { cache?.dismissed[report] = atMs }
}
