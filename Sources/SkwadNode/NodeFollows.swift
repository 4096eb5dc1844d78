import SkwadCrypto
import SkwadModel
import SkwadReplica
import SkwadStore

/// A pseudonym this user follows, as `following` lists them.
public struct FollowedAuthor: Sendable, Equatable {
    public let pack: PackID
    public let packName: String
    public let author: PublicKey
    public let posts: Int
}

/// Follows (issue 26): a pseudonym of one pack (pseudonyms are per pack, so a follow never
/// crosses packs), local state only. Their posts make a feed, a live line and inbox entries.
extension Node {
    /// Follows (or unfollows) the pseudonym `ref` names: a tag, or the id of one of its posts
    /// or comments, or of a message it sent you.
    public func follow(_ ref: String, on: Bool) throws -> (pack: PackID, author: PublicKey, packName: String) {
        let (packID, author) = try resolvePeer(ref)
        if on, isBlocked(author) { throw NodeError("you blocked \(pseudonymTag(author)): unblock it first") }
        do { try store.setFollowed(pack: packID, author: author, on: on, atMs: now()) } catch {
            stats.storeErrors += 1
            throw NodeError("\(error)")
        }
        return (packID, author, replica.pack(packID)?.create.name ?? "")
    }

    /// The pseudonyms you follow in live packs, by pack name then tag.
    public func following() -> [FollowedAuthor] {
        let nowMs = now()
        let followed = conversationState().followed
        var out: [FollowedAuthor] = []
        for k in followed.keys {
            let pack = OpID(unchecked32: Array(k.prefix(32)))
            guard replica.isLive(pack, nowMs: nowMs), let author = try? PublicKey(bytes: Array(k.suffix(32))) else { continue }
            let posts = replica.feed(packs: [pack], limit: .max, nowMs: nowMs).filter { $0.author == author }.count
            out.append(FollowedAuthor(pack: pack, packName: replica.pack(pack)?.create.name ?? "", author: author, posts: posts))
        }
        return out.sorted { ($0.packName, $0.author) < ($1.packName, $1.author) }
    }

    /// Posts of the pseudonyms you follow, in any live pack (joined or not), newest first.
    public func followingFeed(limit: Int) -> [PostView] {
        purgeIfDue()
        let followed = conversationState().followed
        guard !followed.isEmpty else { return [] }
        let packs = Set(followed.keys.map { OpID(unchecked32: Array($0.prefix(32))) })
        let posts = replica.feed(packs: packs, sort: .new, limit: .max, nowMs: now())
            .filter { followed[ConversationState.verifiedKey(pack: $0.pack, peer: $0.author)] != nil }
        return Array(filterFeed(posts, namedPack: true).prefix(max(0, limit)))
    }
}

/// Follows as a feature of the node: a line for a followed pseudonym's post in a pack you did
/// not join, and its inbox entries. Its state is the store's (`ConversationState.followed`).
final class Follows: NodeFeature {
    /// Live lines for posts of followed pseudonyms among newly admitted ops (packs you joined
    /// already print every new post).
    func arrived(_ ops: [SignedOp], nowMs: UInt64, listening: Bool, node: isolated Node) -> [NodeEvent] {
        guard listening else { return [] }
        let followed = node.conversationState().followed
        guard !followed.isEmpty else { return [] }
        var out: [NodeEvent] = []
        for op in ops where node.joined[op.packID] == nil && !node.isSilenced(op) {
            guard case .post = op.body.kind, followed[ConversationState.verifiedKey(pack: op.packID, peer: op.author)] != nil,
                let t = node.replica.thread(op.id, nowMs: nowMs), t.post.hidden == nil
            else { continue }
            out.append(.conversation(.followedPost(t.post)))
        }
        return out
    }

    /// Inbox entries for posts of followed pseudonyms among `ops`.
    func inboxItems(_ ops: [SignedOp], nowMs: UInt64, node: isolated Node) -> [InboxItem] {
        let followed = node.conversationState().followed
        guard !followed.isEmpty else { return [] }
        let styles = node.packStyles()
        var items: [InboxItem] = []
        for op in ops where node.replica.contains(op.id) && !node.isSilenced(op) {
            guard case .post = op.body.kind, followed[ConversationState.verifiedKey(pack: op.packID, peer: op.author)] != nil,
                let t = node.replica.thread(op.id, nowMs: nowMs), t.post.hidden == nil
            else { continue }
            items.append(
                InboxItem(
                    kind: .followedPost(t.post), packName: styles[op.packID]?.label ?? t.post.packName, about: t.post.title,
                    atMs: op.hlc.physicalMs))
        }
        return items
    }
}
