import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadStore

/// One message of a conversation, either way.
public struct ConversationEntry: Sendable, Equatable {
    /// The id of the op that carried it.
    public let id: OpID
    public let pack: PackID
    /// The other pseudonym.
    public let peer: PublicKey
    /// Sent by this user.
    public let mine: Bool
    public let text: String
    public let atMs: UInt64
    /// A message sent by this user that the recipient acknowledged with a receipt.
    public let delivered: Bool
}

/// One conversation, as `chat` lists them: the latest message and how many there are.
public struct ConversationSummary: Sendable, Equatable {
    public let pack: PackID
    public let packName: String
    public let peer: PublicKey
    public let verified: Bool
    public let count: Int
    public let last: ConversationEntry
}

/// What `chat` shows: every conversation, or one.
public enum ChatView: Sendable, Equatable {
    case list([ConversationSummary])
    case thread(pack: PackID, packName: String, peer: PublicKey, verified: Bool, entries: [ConversationEntry])
}

/// What `verify` shows.
public struct SafetyView: Sendable, Equatable {
    public let pack: PackID
    public let packName: String
    public let me: PublicKey
    public let peer: PublicKey
    public let number: String
    public let verified: Bool
}

/// A conversation event, printed above the prompt.
public enum ConversationEvent: Sendable, Equatable {
    case message(ConversationEntry, packName: String, verified: Bool)
    case delivered(id: OpID, peer: PublicKey)
    /// A post by a pseudonym you follow, in a pack you did not join (NodeFollows.swift).
    case followedPost(PostView)
}

/// Direct messages between pseudonyms of a pack (issue 26; PROTOCOL.md §3a): sealed to the
/// recipient's pseudonym, carried by an op signed with a one-off key, acknowledged with a
/// sealed receipt; safety numbers and verified marks.
extension Node {
    /// Sends `text` to a pseudonym (its tag), to the author of a post or comment (its id), or
    /// to the sender of a direct message you received (its id). Returns once committed.
    public func dm(to ref: String, text: String) throws -> (id: OpID, peer: PublicKey, packName: String) {
        purgeIfDue()
        let (packID, peer) = try resolvePeer(ref)
        guard !isBlocked(peer) else { throw NodeError("you blocked \(pseudonymTag(peer)): unblock it first") }
        let body = text.trimmingWhitespaceForReport()
        guard !body.isEmpty else { throw NodeError("say something: dm AUTHOR \"TEXT\"") }
        guard body.utf8.count <= Limits.maxBody else { throw NodeError("message is \(body.utf8.count) bytes, limit \(Limits.maxBody)") }
        let id = try sendLetter(to: peer, in: packID, text: body, acks: [])
        do { try store.addSentLetter(SentLetter(id: id, pack: packID, peer: peer, text: body, atMs: now())) } catch {
            stats.storeErrors += 1
        }
        return (id, peer, replica.pack(packID)?.create.name ?? "")
    }

    /// Every conversation (latest first), or the one with `ref` (oldest message first).
    public func chat(with ref: String?) throws -> ChatView {
        purgeIfDue()
        let state = conversationState()
        let all = conversations(state)
        guard let ref else {
            var out: [ConversationSummary] = []
            for (key, entries) in all {
                guard let last = entries.last else { continue }
                out.append(
                    ConversationSummary(
                        pack: key.pack, packName: replica.pack(key.pack)?.create.name ?? "", peer: key.peer,
                        verified: state.verified.contains(
                            ConversationState.verifiedKey(
                                pack: key.pack,
                                peer: key.peer)),
                        count: entries.count, last: last))
            }
            return .list(out.sorted { ($0.last.atMs, $0.last.id) > ($1.last.atMs, $1.last.id) })
        }
        let (packID, peer) = try resolvePeer(ref)
        return .thread(
            pack: packID, packName: replica.pack(packID)?.create.name ?? "", peer: peer,
            verified: state.verified.contains(ConversationState.verifiedKey(pack: packID, peer: peer)),
            entries: all.first { $0.key.pack == packID && $0.key.peer == peer }?.entries ?? [])
    }

    /// The safety number of your pseudonym and `ref`'s in their pack; `confirm` marks it
    /// verified (after comparing it out of band), `unconfirm` removes the mark.
    public func verify(_ ref: String, confirm: Bool? = nil) throws -> SafetyView {
        let (packID, peer) = try resolvePeer(ref)
        guard let me = replyKey(to: peer, in: packID) else { throw NodeError("unknown pack") }
        if let confirm {
            do { try store.setVerified(pack: packID, peer: peer, on: confirm, atMs: now()) } catch {
                stats.storeErrors += 1
                throw NodeError("\(error)")
            }
        }
        let verified = conversationState().verified.contains(ConversationState.verifiedKey(pack: packID, peer: peer))
        return SafetyView(
            pack: packID, packName: replica.pack(packID)?.create.name ?? "", me: me.publicKey, peer: peer,
            number: SafetyNumber.of(me.publicKey, peer, pack: packID), verified: verified)
    }

    // MARK: arrivals

    // MARK: internals

    /// This node's keys in a pack that can be written to: its pseudonym when it acted there
    /// (it holds a stamp) or joined, and its persona when that acted there (NodeProfiles.swift).
    /// Nobody can name a key that never wrote.
    func myConversationKeys(_ packID: PackID) -> [SigningKeyPair] {
        var out: [SigningKeyPair] = []
        if stamps[packID] != nil || joined[packID] != nil, let k = key(for: packID) { out.append(k) }
        if personaStamp(packID) != nil, let k = personaKey(packID) { out.append(k) }
        return out
    }

    /// The key this node talks to `peer` with in a pack: its persona when `peer` wrote to it
    /// there, else its pseudonym.
    func replyKey(to peer: PublicKey, in packID: PackID) -> SigningKeyPair? {
        if personaStamp(packID) != nil, let persona = personaKey(packID),
            myLetters(in: packID, openedWith: persona).contains(where: { $0.sender == peer })
        {
            return persona
        }
        return key(for: packID)
    }

    /// Conversations by (pack, peer): letters received (not receipts; blocked senders left
    /// out) and letters sent (kept locally), oldest first, with delivery from receipts.
    func conversations(_ state: ConversationState) -> [(key: (pack: PackID, peer: PublicKey), entries: [ConversationEntry])] {
        let nowMs = now()
        var entries: [[UInt8]: [ConversationEntry]] = [:]
        var acked: [[UInt8]: Set<OpID>] = [:]
        for packID in replica.packIDs() where replica.isLive(packID, nowMs: nowMs) {
            for me in myConversationKeys(packID) {
                for l in myLetters(in: packID, openedWith: me) where !isBlocked(l.sender) {
                    let k = ConversationState.verifiedKey(pack: packID, peer: l.sender)
                    if l.letter.isReceipt { acked[k, default: []].formUnion(l.letter.acks); continue }
                    entries[k, default: []].append(
                        ConversationEntry(
                            id: l.id, pack: packID, peer: l.sender, mine: false,
                            text: l.letter.text,
                            atMs: l.hlc.physicalMs, delivered: false))
                }
            }
        }
        for s in state.sent where replica.isLive(s.pack, nowMs: nowMs) {
            let k = ConversationState.verifiedKey(pack: s.pack, peer: s.peer)
            let atMs = replica.op(s.id)?.hlc.physicalMs ?? s.atMs
            entries[k, default: []].append(
                ConversationEntry(
                    id: s.id, pack: s.pack, peer: s.peer, mine: true, text: s.text, atMs: atMs,
                    delivered: acked[k]?.contains(s.id) ?? false))
        }
        return entries.map { k, v in
            let key = (pack: OpID(unchecked32: Array(k.prefix(32))), peer: try! PublicKey(bytes: Array(k.suffix(32))))
            return (key, v.sorted { ($0.atMs, $0.id) < ($1.atMs, $1.id) })
        }
    }

    /// The letters of a pack that `key` opens (`Conversations.letters`).
    func myLetters(in packID: PackID, openedWith key: SigningKeyPair) -> [LetterView] {
        features.conversations.letters(in: packID, openedWith: key, replica: replica)
    }

    func conversationState() -> ConversationState {
        do { return try store.conversationState() } catch {
            stats.storeErrors += 1
            return ConversationState()
        }
    }

    /// Seals a letter from this node's pseudonym in `packID` to `peer`, carries it in an op
    /// signed by a fresh one-off key (with its own stamp), and commits it.
    /// `me`: the sending key (default: `replyKey`).
    func sendLetter(to peer: PublicKey, in packID: PackID, text: String, acks: [OpID], as sender: SigningKeyPair? = nil) throws -> OpID {
        let nowMs = now()
        guard let pack = replica.pack(packID), replica.isLive(packID, nowMs: nowMs) else {
            throw NodeError("that pack is gone (expired or deleted)")
        }
        guard let me = sender ?? replyKey(to: peer, in: packID) else { throw NodeError("unknown pack") }
        let isPersona = me.publicKey != key(for: packID)?.publicKey
        try takeLocalBudget(me.publicKey, nowMs: nowMs)  // the sender pseudonym's budget, receipts included
        let bits = Int(replica.config.pseudonymBits(pack.create.powBits))
        var changes: [LocalChange] = []
        let myStamp: UInt64
        if let s = isPersona ? personaStamp(packID) : stamps[packID] {
            myStamp = s
        } else {
            myStamp = ProofOfWork.mint(
                genesisNonce: pack.genesis.createNonce, author: me.publicKey.bytes, bits: bits,
                progress: mintProgress)
            changes.append(isPersona ? .setting(Self.personaStampSetting(packID), String(myStamp)) : .stamp(packID, myStamp))
        }
        let carrier = SigningKeyPair.generate()
        var progress: ((UInt64) -> Void)?
        if acks.isEmpty, let p = mintProgress { progress = p }
        let carrierStamp = ProofOfWork.mint(
            genesisNonce: pack.genesis.createNonce, author: carrier.publicKey.bytes, bits: bits,
            progress: progress)
        if acks.isEmpty { mintProgress?(0) }
        let op: SignedOp
        do {
            let letter = DirectLetter(sender: me.publicKey, stamp: myStamp, recipient: peer, text: text, acks: acks)
            let dm = try DirectMessage.seal(letter, signer: me, pack: packID, carrier: carrier.publicKey)
            let body = OpBody(
                packID: packID, author: carrier.publicKey, hlc: own.clocks.tick(packID, physicalMs: nowMs), stamp: carrierStamp,
                kind: .directMessage(dm))
            op = try SignedOp.sign(body, with: carrier)
        } catch { throw NodeError("\(error)") }
        try commit(op, with: changes)
        return op.id
    }

    /// The (pack, pseudonym) `ref` names: a pseudonym tag (`anon·3f2a9c01`, or its hex) of
    /// someone who wrote in a live pack, the id of a post or comment (its author), or the id
    /// of a direct message you received (its sender).
    func resolvePeer(_ ref: String) throws -> (pack: PackID, peer: PublicKey) {
        let nowMs = now()
        var hex = ref.lowercased()
        var isTag = false
        for prefix in ["anon·", "anon.", "anon-", "anon"] where hex.hasPrefix(prefix) { hex.removeFirst(prefix.count); isTag = true; break }
        guard hex.count >= 2, hex.count <= 64, hex.allSatisfy(\.isHexDigit) else {
            throw NodeError("'\(NodeError.quote(ref))' is neither a pseudonym tag (anon·3f2a9c01) nor an id")
        }
        if !isTag {
            if let op = try? resolveOp(hex) { return try peer(op.packID, op.author) }
            for packID in replica.packIDs() where replica.isLive(packID, nowMs: nowMs) {
                for me in myConversationKeys(packID) {
                    for l in myLetters(in: packID, openedWith: me) where l.id.hex.hasPrefix(hex) && !l.letter.isReceipt {
                        return try peer(packID, l.sender)
                    }
                }
            }
        }
        guard hex.count >= 4 else { throw NodeError("'\(NodeError.quote(ref))' is too short for a pseudonym tag") }
        var found: [(pack: PackID, peer: PublicKey)] = []
        var seen = Set<[UInt8]>()
        for op in replica.allOps where op.author.hex.hasPrefix(hex) && replica.isLive(op.packID, nowMs: nowMs) {
            if case .directMessage = op.body.kind { continue }
            if seen.insert(op.packID.bytes + op.author.bytes).inserted { found.append((op.packID, op.author)) }
        }
        if found.isEmpty {
            for packID in replica.packIDs() where replica.isLive(packID, nowMs: nowMs) {
                for me in myConversationKeys(packID) {
                    for l in myLetters(in: packID, openedWith: me) where l.sender.hex.hasPrefix(hex) {
                        if seen.insert(packID.bytes + l.sender.bytes).inserted { found.append((packID, l.sender)) }
                    }
                }
            }
        }
        guard found.count == 1 else {
            throw NodeError(
                found.isEmpty
                    ? "no pseudonym '\(NodeError.quote(ref))' in a live pack here"
                    : "'\(NodeError.quote(ref))' matches \(found.count) pseudonyms: type more of it")
        }
        return try peer(found[0].pack, found[0].peer)
    }

    private func peer(_ packID: PackID, _ key: PublicKey) throws -> (pack: PackID, peer: PublicKey) {
        guard !isMine(key, in: packID) else { throw NodeError("that is you") }
        return (packID, key)
    }
}

/// Direct messages as a feature of the node: it keeps the boxes it opened and the receipts
/// owed for the last arrivals; it hears arrivals (a line per message to this user, one per
/// receipt of theirs), sends the receipts once the lines are out, and gives `inbox` the
/// messages received since the last look.
final class Conversations: NodeFeature {
    /// At most this many opened boxes are remembered; beyond it the memo starts again.
    static let letterMemoCapacity = 100_000
    /// Boxes of direct messages already opened, by op id and key (`nil`: the key opens none).
    private var letterMemo: [[UInt8]: DirectLetter?] = [:]
    /// Receipts owed for the ops `arrived` saw last, sent by `settle`.
    private var owed: [Receipt] = []

    /// A receipt to send: ids of messages from `peer` that arrived at `me` in `pack`.
    private struct Receipt: Sendable {
        let pack: PackID
        let peer: PublicKey
        let me: SigningKeyPair
        let acks: [OpID]
    }

    func arrived(_ ops: [SignedOp], nowMs: UInt64, listening: Bool, node: isolated Node) -> [NodeEvent] {
        let letters = arrivals(ops, node: node)
        owed = letters.receipts
        return letters.events
    }

    func settle(_ ops: [SignedOp], nowMs: UInt64, node: isolated Node) {
        let receipts = owed
        owed = []
        send(receipts, node: node)
    }

    /// New messages to this user among `ops` (for `inbox`), from pseudonyms not blocked.
    func inboxItems(_ ops: [SignedOp], nowMs: UInt64, node: isolated Node) -> [InboxItem] {
        var byPack: [PackID: Set<OpID>] = [:]
        for op in ops where node.replica.isLive(op.packID, nowMs: nowMs) {
            if case .directMessage = op.body.kind { byPack[op.packID, default: []].insert(op.id) }
        }
        var items: [InboxItem] = []
        let styles = node.packStyles()
        for (packID, ids) in byPack {
            for me in node.myConversationKeys(packID) {
                for l in node.myLetters(in: packID, openedWith: me)
                where ids.contains(l.id) && !l.letter.isReceipt
                    && !node.isBlocked(l.sender)
                {
                    let entry = ConversationEntry(
                        id: l.id, pack: packID, peer: l.sender, mine: false, text: l.letter.text,
                        atMs: l.hlc.physicalMs, delivered: false)
                    items.append(InboxItem(kind: .letter(entry), packName: styles[packID]?.label ?? "", about: "", atMs: entry.atMs))
                }
            }
        }
        return items
    }

    /// Letters among newly admitted ops from elsewhere: events for messages to this user and
    /// for receipts of its messages, and the receipts to send back (one per sender and pack,
    /// up to 8 ids each; `settle`, after the events are out: minting a receipt's stamp
    /// must not delay the line). Letters from blocked pseudonyms say nothing and get no receipt.
    private func arrivals(_ ops: [SignedOp], node: isolated Node) -> (events: [NodeEvent], receipts: [Receipt]) {
        var byPack: [PackID: Set<OpID>] = [:]
        for op in ops { if case .directMessage = op.body.kind { byPack[op.packID, default: []].insert(op.id) } }
        guard !byPack.isEmpty else { return ([], []) }
        var receipts: [Receipt] = []
        let state = node.conversationState()
        let sent = Set(state.sent.map(\.id))
        var out: [NodeEvent] = []
        for (packID, ids) in byPack.sorted(by: { $0.key < $1.key }) {
            let name = node.replica.pack(packID)?.create.name ?? ""
            for me in node.myConversationKeys(packID) {
                var toAck: [PublicKey: [OpID]] = [:]
                for l in node.myLetters(in: packID, openedWith: me) where ids.contains(l.id) && !node.isBlocked(l.sender) {
                    if l.letter.isReceipt {
                        for a in l.letter.acks where sent.contains(a) { out.append(.conversation(.delivered(id: a, peer: l.sender))) }
                    } else {
                        let entry = ConversationEntry(
                            id: l.id, pack: packID, peer: l.sender, mine: false, text: l.letter.text,
                            atMs: l.hlc.physicalMs, delivered: false)
                        let verified = state.verified.contains(ConversationState.verifiedKey(pack: packID, peer: l.sender))
                        out.append(.conversation(.message(entry, packName: name, verified: verified)))
                        toAck[l.sender, default: []].append(l.id)
                    }
                }
                for (peer, acks) in toAck.sorted(by: { $0.key < $1.key }) {
                    var rest = acks[...]
                    while !rest.isEmpty {
                        let chunk = Array(rest.prefix(Limits.maxReceiptAcks))
                        rest = rest.dropFirst(chunk.count)
                        receipts.append(Receipt(pack: packID, peer: peer, me: me, acks: chunk))
                    }
                }
            }
        }
        return (out, receipts)
    }

    /// Sends receipts. One that cannot go now (rate, a pack gone) is not retried: its sender
    /// sees "sent", not "delivered".
    private func send(_ receipts: [Receipt], node: isolated Node) {
        for r in receipts {
            do { _ = try node.sendLetter(to: r.peer, in: r.pack, text: "", acks: r.acks, as: r.me) } catch {
                node.stats.receiptsNotSent += 1
            }
        }
    }

    /// `Replica.letters` with each box opened once per key (the memo is keyed by op id and
    /// key; a box's content never changes).
    func letters(in packID: PackID, openedWith key: SigningKeyPair, replica: Replica) -> [LetterView] {
        if letterMemo.count > Self.letterMemoCapacity { letterMemo = [:] }
        var opened: [OpID: DirectLetter] = [:]
        for id in replica.directMessageIDs(in: packID) {
            let k = id.bytes + key.publicKey.bytes
            let letter: DirectLetter?
            if let known = letterMemo[k] {
                letter = known
            } else {
                guard let op = replica.op(id), case .directMessage(let dm) = op.body.kind else { continue }
                letter = dm.open(with: key, pack: packID, carrier: op.author)
                letterMemo[k] = .some(letter)
            }
            if let letter { opened[id] = letter }
        }
        return replica.letters(in: packID, opened: opened)
    }
}

extension OpID {
    /// An id from 32 bytes known to be 32 long.
    init(unchecked32 bytes: [UInt8]) { self = try! OpID(bytes: bytes) }
}
