import SkwadModel
import SkwadNode
import SkwadReplica

/// What a command produced, before it is rendered as text or JSON.
public enum Reply: Sendable {
    case done(String, id: OpID?)
    case created(PackSummary)
    case packs([Node.PackListing])
    /// `thumbnails`: half-block lines of pictures, by post (drawn on a terminal only).
    /// `empty`: what an empty feed says when a filter left every post out (`--within`, `--tag`, a pack).
    case feed([PostView], thumbnails: [OpID: [String]] = [:], empty: String? = nil)
    /// `thumbnail`: half-block lines of its picture (drawn on a terminal only).
    case thread(ThreadView, thumbnail: [String] = [])
    case den(Node.Den)
    case whoami(Node.WhoAmI)
    case help(String)
    /// Neighbours; `note`: why there are none (offline, seeds not answering).
    case peers([PeerInfo], note: String? = nil)
    case trusted(Node.Trusted)
    case stats([(String, Int)])
    case search([SearchHit])
    case inbox(Inbox)
    /// The map; `json`: print it as JSON even in text mode (`map --json`).
    case map(MapView, json: Bool)
    case bye
    /// Replies of the moderation verbs (RenderModeration.swift).
    case moderation(ModerationReply)
    /// Replies of the place verbs (RenderPlaces.swift).
    case places(PlaceReply)
    /// Replies of dm, chat, verify (RenderConversations.swift).
    case conversation(ConversationReply)
    /// Replies of create --private, invite, join CODE, remove (CommandPrivatePacks.swift).
    case privatePack(PrivatePackReply)
    case caption(CaptionReply)
    /// Replies of invite and connect (CommandContacts.swift).
    case contact(ContactReply)
}

/// A neighbour as `peers` shows it.
public struct PeerInfo: Sendable, Equatable {
    public let address: String
    public let state: String
    public let cell: String?
    public init(address: String, state: String, cell: String?) { self.address = address; self.state = state; self.cell = cell }
}
