import Foundation
import SkwadGossip
import SkwadModel
import SkwadReplica
import SkwadStore

/// A picture as `open` wrote it.
public struct OpenedPicture: Sendable, Equatable {
    public let path: String
    public let type: PictureType
    public let size: Int
    public let width: Int
    public let height: Int
}

/// Pictures as a feature of the node: fetched when the posts that carry them arrive, their
/// fetches cancelled with their pack. Blocks waiting for a store transaction are the engine
/// driver's (`NetworkState.pendingBlocks`).
final class Pictures: NodeFeature {
    func settle(_ ops: [SignedOp], nowMs: UInt64, node: isolated Node) { node.fetchPictures(of: ops, nowMs: nowMs) }

    func purged(_ pack: PackID, node: isolated Node) { node.network?.engine.cancelPictures(pack: pack) }
}

/// Pictures on posts and asks (PROTOCOL §5 "Pictures", §10b): stripped and cut into blocks
/// when posted, fetched when a post that carries one first arrives (not when the post is
/// hidden or its author blocked), kept with their pack, and evicted least recently used past
/// `pictureStoreBytes` when their pack is not one of ours.
extension Node {
    /// Strips `image` (JPEG, PNG or WebP, sniffed from the bytes), stores its blocks and
    /// returns the ref a post carries. Throws one line on a file that is not a picture.
    func preparePicture(_ image: [UInt8], pack: PackID) throws -> PictureRef {
        let stripped: StrippedPicture
        do { stripped = try PictureFormat.strip(image) } catch { throw NodeError("\(error)") }
        let (ref, blocks) = PictureBlocks.make(stripped)
        do {
            try store.putPicture(ref, pack: pack, blocks: blocks.enumerated().map { ($0.offset, $0.element) }, nowMs: now())
        } catch { throw NodeError("\(error)") }
        return ref
    }

    /// Starts fetching the pictures of posts that just arrived from elsewhere (`[pictures]
    /// fetch = "arrival"`, the default), or that `feed`, `show` or `open` display (`shown`).
    /// A picture held whole, or being fetched, is left alone; blocks held already are not
    /// asked again.
    func fetchPictures(of ops: [SignedOp], nowMs: UInt64, shown: Bool = false) {
        guard network != nil, shown == (config.pictureFetch == .shown) else { return }
        storePendingBlocks()
        for op in ops {
            guard case .post(let p) = op.body.kind, let ref = p.picture, !isSilenced(op),
                replica.thread(op.id, nowMs: nowMs)?.post.hidden == nil
            else { continue }
            do {
                // Recorded in this pack too when another pack holds it already (it goes with each).
                try store.putPicture(ref, pack: op.packID, blocks: [], nowMs: nowMs)
                guard let known = try store.picture(root: ref.root), !known.isComplete else { continue }
                let held = known.held == 0 ? [:] : try store.pictureBlocks(root: ref.root, nowMs: nowMs)
                carryOut(network!.engine.fetchPicture(ref, pack: op.packID, known: held, nowMs: nowMs, replica: replica))
            } catch { stats.storeErrors += 1 }
        }
    }

    /// Going online: the fetches a restart cut short start again (`fetch = "arrival"`; with
    /// "shown" they start when their post is shown), asking only for the blocks not stored.
    /// At most 16 (the engine's fetches at once), the most recently used first, among the 64
    /// most recently used incomplete pictures.
    func resumePictures() {
        guard network != nil, config.pictureFetch == .arrival else { return }
        let nowMs = now()
        var ops: [SignedOp] = []
        do {
            for (root, pack) in try store.incompletePictures().prefix(64) where ops.count < 16 {
                let post = replica.feed(packs: [pack], limit: .max, nowMs: nowMs).first { $0.picture?.root == root }
                if let id = post?.id, let op = replica.op(id), !ops.contains(where: { $0.id == op.id }) { ops.append(op) }
            }
        } catch { stats.storeErrors += 1 }
        fetchPictures(of: ops, nowMs: nowMs)
    }

    /// `[pictures] fetch = "shown"`: fetches the pictures of the posts just displayed.
    func fetchShownPictures(_ ids: [OpID]) {
        guard config.pictureFetch == .shown, network != nil else { return }
        let ops = ids.compactMap { id -> SignedOp? in
            guard let op = replica.op(id), case .post(let p) = op.body.kind, let ref = p.picture,
                network!.engine.picturesFetching.contains(ref.root) == false
            else { return nil }
            return op
        }
        fetchPictures(of: ops, nowMs: now(), shown: true)
    }

    /// Carries out a picture directive of the engine (NodeNetwork.swift's `carryOut`): returns
    /// the directives of the engine's answer, for `carryOut` to carry.
    func carryOutPicture(_ d: GossipDirective) -> [GossipDirective] {
        let nowMs = now()
        switch d {
        case .blocksWanted(let root, let indexes, let peer):
            storePendingBlocks()
            guard let pic = try? store.picture(root: root),
                let held = try? store.pictureBlocks(root: root, indexes: indexes, nowMs: nowMs, touch: false)
            else {
                return network?.engine.answerNotHeld(root: root, indexes: indexes, to: peer, nowMs: nowMs) ?? []
            }
            // A block not held is answered empty: the asker tries another peer at once.
            let blocks = indexes.map { (index: $0, data: held[$0] ?? []) }
            guard network != nil else { return [] }
            return network!.engine.answerBlocks(root: root, pack: pic.pack, blocks: blocks, to: peer, nowMs: nowMs, replica: replica)
        case .blockReceived(let root, _, let index, let data):
            network?.pendingBlocks.append((root, index, data))
            if network?.pendingBlocks.count ?? 0 >= Self.blocksPerTransaction { storePendingBlocks() }
        case .pictureComplete:
            storePendingBlocks()
            evictPicturesIfNeeded()
        default: break
        }
        return []
    }

    /// Checked blocks are stored `blocksPerTransaction` at a time (one transaction each was a
    /// fifth of a node's time while a picture spread), and before the store is read for an
    /// answer, at each tick (every 50 ms while a fetch runs), when a picture is whole and
    /// when the node goes offline. A crash loses at most those: they are fetched again.
    static let blocksPerTransaction = 16

    func storePendingBlocks() {
        guard let pending = network?.pendingBlocks, !pending.isEmpty else { return }
        network!.pendingBlocks = []
        do { try store.putPictureBlocks(pending) } catch { stats.storeErrors += 1 }
    }

    /// Past the cap, the least recently used pictures of packs we are not in go.
    func evictPicturesIfNeeded() {
        do { try store.evictPictures(capBytes: config.pictureStoreBytes, members: Set(joined.keys)) } catch { stats.storeErrors += 1 }
    }

    /// The picture of post `ref` (the store's copy, complete): nil when the post has none.
    func pictureOf(_ ref: String) throws -> (op: SignedOp, picture: PictureRef)? {
        let op = try resolveOp(ref)
        guard case .post(let p) = op.body.kind, let picture = p.picture else { return nil }
        return (op, picture)
    }

    /// Writes the picture of post `ref` to `path` (default: `<data dir>/pictures/<id>.<ext>`,
    /// the id as printed)
    /// and says what it is. Throws one line when the post has no picture, it is hidden, or
    /// its blocks are not all here yet.
    public func openPicture(_ ref: String, to path: String? = nil) throws -> OpenedPicture {
        guard let (op, picture) = try pictureOf(ref) else { throw NodeError("'\(NodeError.quote(ref))' has no picture") }
        fetchShownPictures([op.id])
        let nowMs = now()
        if isSilenced(op) || replica.thread(op.id, nowMs: nowMs)?.post.hidden != nil {
            throw NodeError("that post is hidden: its picture is not shown")
        }
        let stored: StoredPicture?
        do { stored = try store.picture(root: picture.root) } catch { throw NodeError("\(error)") }
        guard let stored, stored.isComplete else {
            let have = stored.map { "\($0.held) of \(picture.blockCount) blocks" } ?? "no blocks"
            throw NodeError("the picture is not here yet (\(have)); try again in a moment")
        }
        let blocks: [Int: [UInt8]]
        do { blocks = try store.pictureBlocks(root: picture.root, nowMs: nowMs) } catch { throw NodeError("\(error)") }
        guard let bytes = PictureAssembly.assemble(ref: picture, blocks: blocks), let measured = PictureFormat.measure(bytes) else {
            throw NodeError("the stored picture is damaged")
        }
        // Named by the post's id as the REPL prints it (`open 5e1c0a` writes `5e1c0a.jpg`).
        let target = path ?? "\(config.dataDir)/pictures/\(op.id.short(displayIDLength())).\(measured.type.fileExtension)"
        do {
            try FileManager.default.createDirectory(
                atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: target))
        } catch { throw NodeError("cannot write \(target): \(error.localizedDescription)") }
        return OpenedPicture(path: target, type: measured.type, size: bytes.count, width: measured.width, height: measured.height)
    }

    /// The bytes of the picture of post `id` when it is whole here and shown (the post not
    /// hidden, its author not blocked): for `show`'s thumbnail.
    public func pictureBytesShown(_ id: OpID) -> [UInt8]? {
        guard let op = replica.op(id), case .post(let p) = op.body.kind, let ref = p.picture, !isSilenced(op),
            replica.thread(id, nowMs: now())?.post.hidden == nil, (try? store.picture(root: ref.root))??.isComplete == true,
            let blocks = try? store.pictureBlocks(root: ref.root, nowMs: now())
        else { return nil }
        return PictureAssembly.assemble(ref: ref, blocks: blocks)
    }

    /// What the store holds of a picture (tests, `show`).
    public func storedPicture(root: [UInt8]) -> StoredPicture? { try? store.picture(root: root) }
}
