import SkwadCrypto
import SkwadModel

/// A direct message or receipt as its recipient reads it (PROTOCOL.md §3a, §5).
public struct LetterView: Sendable, Equatable {
    /// The id of the op that carried it.
    public let id: OpID
    public let pack: PackID
    public let hlc: HLC
    public let letter: DirectLetter
    public var sender: PublicKey { letter.sender }
}

extension Replica {
    /// Ids of a pack's direct-message ops in (hlc, id) order, opened or not: what a relay holds.
    public func directMessageIDs(in packID: PackID) -> [OpID] {
        guard let pack = packs[packID] else { return [] }
        return pack.order.compactMap { e in
            guard let op = ops[e.id], case .directMessage = op.body.kind else { return nil }
            return op.id
        }
    }

    /// The letters of a pack addressed to `key` (the reader's pseudonym there), oldest first.
    /// A letter counts when its box opens with `key`, its sender's signature binds it to this
    /// pack and to the op carrying it, its sender shows a valid stamp for this pack, and it is
    /// among the first `Limits.lettersPerSenderHour` of that sender in its clock hour to reach
    /// this replica. Everything else says nothing, and nobody without `key` learns anything here.
    public func letters(in packID: PackID, openedWith key: SigningKeyPair) -> [LetterView] {
        var opened: [OpID: DirectLetter] = [:]
        for id in directMessageIDs(in: packID) {
            guard let op = ops[id], case .directMessage(let dm) = op.body.kind,
                let l = dm.open(with: key, pack: packID, carrier: op.author)
            else { continue }
            opened[id] = l
        }
        return letters(in: packID, opened: opened)
    }

    /// The same rules over letters already opened (by op id): a node opens each box once and
    /// remembers it.
    public func letters(in packID: PackID, opened: [OpID: DirectLetter]) -> [LetterView] {
        guard let pack = packs[packID], !opened.isEmpty else { return [] }
        let g = pack.genesisCreate
        let bits = Int(config.pseudonymBits(g.powBits))
        // Counted in the order the letters arrived: a letter that counted once keeps counting,
        // so a node raises an event and sends a receipt only for letters its views keep
        // showing (a later letter backdated into the same hour displaces none).
        var perHour: [PublicKey: [UInt64: Int]] = [:]
        var stampOK: [PublicKey: Bool] = [:]
        var counted: Set<OpID> = []
        let byArrival = opened.keys.sorted { (letterArrival[$0] ?? .max, $0) < (letterArrival[$1] ?? .max, $1) }
        for id in byArrival {
            guard let letter = opened[id], let op = ops[id], op.packID == packID else { continue }
            let ok =
                stampOK[letter.sender]
                ?? ProofOfWork.isValid(
                    genesisNonce: g.nonce, author: letter.sender.bytes,
                    stamp: letter.stamp, bits: bits)
            stampOK[letter.sender] = ok
            guard ok else { continue }
            let hour = op.hlc.physicalMs / Lifetime.hour
            let n = perHour[letter.sender]?[hour] ?? 0
            guard n < Limits.lettersPerSenderHour else { continue }
            perHour[letter.sender, default: [:]][hour] = n + 1
            counted.insert(id)
        }
        return pack.order.compactMap { e in
            guard counted.contains(e.id), let letter = opened[e.id], let op = ops[e.id] else { return nil }
            return LetterView(id: op.id, pack: packID, hlc: op.hlc, letter: letter)
        }
    }

    /// Whether `key` is a pseudonym that wrote a post, comment, vote or any op other than a
    /// direct message in the pack (a one-off carrier key of a direct message is not one).
    public func isPseudonym(_ key: PublicKey, in packID: PackID) -> Bool {
        guard let pack = packs[packID] else { return false }
        if pack.alpha == key { return true }
        return pack.order.contains { e in
            guard let op = ops[e.id], op.author == key else { return false }
            if case .directMessage = op.body.kind { return false }
            return true
        }
    }
}

extension Replica {
    /// The display name and about line `author` published in the pack (its last `Profile` by
    /// (hlc, id)); nil when none. A profile counts only in its own pack (same-pack rule).
    public func profile(of author: PublicKey, in packID: PackID) -> Profile? { packs[packID]?.profiles[author]?.value }
}
