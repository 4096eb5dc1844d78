import Foundation
import SkwadModel
import SkwadReplica

/// A user-facing failure of a node command: one line, no stack, the node keeps running.
public struct NodeError: Error, CustomStringConvertible, Sendable, Equatable {
    public let description: String
    /// No live pack here answers to the name or id given (a neighbour may know it).
    public let isUnknownPack: Bool
    public init(_ d: String, unknownPack: Bool = false) { description = d; isUnknownPack = unknownPack }

    /// Input quoted in an error: at most 80 characters (a 1 MB word does not come back whole).
    public static func quote(_ s: String, max: Int = 80) -> String {
        s.count <= max ? s : String(s.prefix(max)) + "…"
    }

    static func from(_ outcome: AdmitOutcome) -> NodeError {
        switch outcome {
        case .rejected(_, let why): NodeError(why)
        case .pending: NodeError("the pack of this op is unknown")
        case .duplicate: NodeError("already done")
        case .admitted: NodeError("internal: admitted op reported as error")
        }
    }

    /// A local op's refusal as its user reads it: the replica names a pack by its id
    /// (`pack 3f2a9c01 is locked: …`), the user knows it by its label (`pack 'Quad' is locked: …`).
    static func from(_ outcome: AdmitOutcome, naming pack: PackID, as label: (PackID) -> String?) -> NodeError {
        let e = from(outcome)
        guard let name = label(pack) else { return e }
        return NodeError(e.description.replacingOccurrences(of: "pack \(pack.short())", with: "pack '\(name)'"))
    }
}

/// Something that happened on its own, for the REPL to print above the prompt (and for
/// `--json` event lines).
public enum NodeEvent: Sendable, Equatable {
    case newPost(PostView)
    case newComment(CommentView, packName: String)
    case voteOnYours(target: OpID, score: Int)
    case peerJoined(String)
    case peerLeft(String)
    /// A direct message to you, or a receipt of yours (NodeConversations.swift).
    case conversation(ConversationEvent)
}
