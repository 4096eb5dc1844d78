import SkwadCrypto

/// The wire version this code writes and accepts.
public let wireVersion: UInt32 = 1

/// The content of an op (DESIGN §3). Its serialized bytes are what gets signed.
public struct OpBody: Hashable, Sendable {
    public var version: UInt32
    /// Empty (nil) in `CreatePack`: the genesis op's own id is the pack id.
    public var packID: PackID?
    public var author: PublicKey
    public var hlc: HLC
    /// Optional location claim: a geohash cell.
    public var location: String?
    /// Proof-of-work stamp binding `author` to the pack's genesis nonce.
    public var stamp: UInt64
    public var kind: OpKind

    public init(
        version: UInt32 = wireVersion, packID: PackID?, author: PublicKey, hlc: HLC,
        location: String? = nil, stamp: UInt64 = 0, kind: OpKind
    ) {
        self.version = version; self.packID = packID; self.author = author; self.hlc = hlc
        self.location = location; self.stamp = stamp; self.kind = kind
    }
}

public enum OpKind: Hashable, Sendable {
    case createPack(CreatePack)
    case post(Post)
    case comment(Comment)
    case vote(Vote)
    case delete(Delete)
    case editPack(EditPack)
    case moderate(Moderate)
    case edit(Edit)
    case report(Report)
    /// A ban or unban of a pseudonym in this pack, by a moderator (issue 47).
    case ban(Ban)
    case place(Place)
    case review(Review)
    case reviewReply(ReviewReply)
    /// A direct message or receipt, sealed to one pseudonym (DirectMessages.swift).
    case directMessage(DirectMessage)
    /// A display name in this pack, by the author's persona (Profiles.swift).
    case profile(Profile)
    /// An op of an invite-only pack, its kind sealed under the pack key (PrivatePacks.swift).
    case sealed(Sealed)
    /// A new pack key of an invite-only pack, sealed to each remaining member (PrivatePacks.swift).
    case packKeys(PackKeys)
    /// Inside a sealed op only: its author joined the invite-only pack.
    case joined
    /// The asker's pick of a caption (issue 28).
    case pick(Pick)

    /// Stable name used in the store, stats and JSON.
    public var name: String {
        switch self {
        case .createPack: "create_pack"
        case .post: "post"
        case .comment: "comment"
        case .vote: "vote"
        case .delete: "delete"
        case .editPack: "edit_pack"
        case .moderate: "moderate"
        case .edit: "edit"
        case .report: "report"
        case .ban: "ban"
        case .place: "place"
        case .review: "review"
        case .reviewReply: "review_reply"
        case .directMessage: "direct_message"
        case .profile: "profile"
        case .sealed: "sealed"
        case .packKeys: "pack_keys"
        case .joined: "joined"
        case .pick: "pick"
        }
    }
}

public struct CreatePack: Hashable, Sendable {
    public var name: String
    public var tags: [String]
    public var color: String
    public var fence: Geofence?
    public var locked: Bool
    public var nonce: [UInt8]
    public var powBits: UInt32
    /// Posts and comments at score <= -hideScore are hidden; 0 on the wire means the default 5.
    public var hideScore: UInt32
    /// An invite-only pack: name, tags and colour travel in `sealedMeta` only (PrivatePacks.swift).
    public var inviteOnly: Bool
    public var sealedMeta: [UInt8]

    public init(
        name: String, tags: [String] = [], color: String = "", fence: Geofence? = nil,
        locked: Bool = false, nonce: [UInt8], powBits: UInt32 = 0, hideScore: UInt32 = 0,
        inviteOnly: Bool = false, sealedMeta: [UInt8] = []
    ) {
        self.name = name; self.tags = tags; self.color = color; self.fence = fence
        self.locked = locked; self.nonce = nonce; self.powBits = powBits; self.hideScore = hideScore
        self.inviteOnly = inviteOnly; self.sealedMeta = sealedMeta
    }
}

public struct Post: Hashable, Sendable {
    public var title: String
    public var body: String
    public var tags: [String]
    /// An ask for captions (CapGrab, PROTOCOL §5 "Captions"): its comments are captions, shown
    /// by score, and its author may `Pick` one.
    public var ask: Bool
    /// A picture, by content address (PROTOCOL §5 "Pictures"); nil: none.
    public var picture: PictureRef?
    public init(title: String, body: String, tags: [String] = [], ask: Bool = false, picture: PictureRef? = nil) {
        self.title = title; self.body = body; self.tags = tags; self.ask = ask; self.picture = picture
    }
}

/// The asker's pick among the captions of an ask (PROTOCOL §5 "Captions"). Counts only when
/// its author wrote the ask and `caption` is a comment on the ask in the same pack; per
/// author, the last by (hlc, id) wins. Admission checks only its shape.
public struct Pick: Hashable, Sendable {
    public var ask: OpID
    public var caption: OpID
    public init(ask: OpID, caption: OpID) { self.ask = ask; self.caption = caption }
}

public struct Comment: Hashable, Sendable {
    public var post: OpID
    /// The comment this one answers; nil answers the post itself.
    public var parent: OpID?
    public var body: String
    public init(post: OpID, parent: OpID? = nil, body: String) { self.post = post; self.parent = parent; self.body = body }
}

public struct Vote: Hashable, Sendable {
    public var target: OpID
    /// -1, 0 (withdrawn) or +1.
    public var value: Int32
    public init(target: OpID, value: Int32) { self.target = target; self.value = value }
}

public struct Delete: Hashable, Sendable {
    public var target: OpID
    public init(target: OpID) { self.target = target }
}

public struct EditPack: Hashable, Sendable {
    public var name: String?
    public var color: String?
    public var tags: [String]?
    public init(name: String? = nil, color: String? = nil, tags: [String]? = nil) {
        self.name = name; self.color = color; self.tags = tags
    }
}

public struct Moderate: Hashable, Sendable {
    public var target: OpID
    public var hidden: Bool
    public var reason: String
    public init(target: OpID, hidden: Bool, reason: String = "") { self.target = target; self.hidden = hidden; self.reason = reason }
}

/// An edit of one's own post or comment (PROTOCOL.md §5: counts only for the target's
/// author, in the target's pack; LWW per field by (hlc, id)).
public struct Edit: Hashable, Sendable {
    public var target: OpID
    /// A post's new title (posts only).
    public var title: String?
    /// A post's new body, or a comment's new text.
    public var body: String?
    public init(target: OpID, title: String? = nil, body: String? = nil) { self.target = target; self.title = title; self.body = body }
}

/// A report to the pack's moderators (PROTOCOL.md §3): its op is signed by a one-off key; one
/// report key sealed to each moderator (`keys`, 80 bytes each) and the padded, signed content
/// sealed once under it (`box`). Relays see only ciphertext (ReportSealing.swift).
public struct Report: Hashable, Sendable {
    public var keys: [[UInt8]]
    public var box: [UInt8]
    public init(keys: [[UInt8]], box: [UInt8]) { self.keys = keys; self.box = box }
}

/// What a report says, inside its box: the target, the reason, and who reports it (the
/// reporter's pseudonym in the pack and its stamp), signed by that pseudonym.
public struct ReportContent: Hashable, Sendable {
    public var target: OpID
    public var reason: String
    public var reporter: PublicKey
    public var stamp: UInt64
    public init(target: OpID, reason: String, reporter: PublicKey, stamp: UInt64) {
        self.target = target; self.reason = reason; self.reporter = reporter; self.stamp = stamp
    }
}

/// A ban (`banned`) or an unban of a pseudonym in this pack, by the Alpha or an admin key.
/// Per (pack, author) the last by (hlc, id) counts; while it is a ban, none of the author's ops
/// in the pack count in views (PROTOCOL.md §5, bans).
public struct Ban: Hashable, Sendable {
    public var author: PublicKey
    public var banned: Bool
    public var reason: String
    public init(author: PublicKey, banned: Bool, reason: String = "") { self.author = author; self.banned = banned; self.reason = reason }
}
