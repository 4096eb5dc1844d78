import Foundation
import SkwadCrypto
import SkwadModel
import SkwadReplica

/// Which admin keys this node trusts (`trust`, `untrust`, `trusted` in the REPL). An admin
/// key's packs are permanent and it moderates any pack, on this node only: trust is local,
/// never sent. The keys live in `admin_keys` of the node's config file
/// (`NodeConfig.writableConfigFile`), rewritten in place; the replica is rebuilt from the
/// store at once, so the change needs no restart.
extension Node {
    public struct Trusted: Sendable, Equatable {
        /// `admin_keys` of the config, in order.
        public let keys: [PublicKey]
        /// This node's own admin key (`admin_secret_file`): always trusted.
        public let own: PublicKey?
        /// Where `trust` writes.
        public let file: String
    }

    public func trusted() -> Trusted { Trusted(keys: config.adminKeys, own: admin?.publicKey, file: config.writableConfigFile) }

    /// Adds (`on`) or removes an admin key: writes the config file, then rebuilds the replica
    /// under the new set. Returns the key and whether anything changed.
    public func trust(_ hex: String, on: Bool) throws -> (key: PublicKey, changed: Bool) {
        let text = hex.trimmingCharacters(in: .whitespaces).lowercased()
        guard text.count == 64, let bytes = Hex.decode(text), let key = try? PublicKey(bytes: bytes) else {
            throw NodeError("'\(NodeError.quote(hex))' is not an admin key: 64 hex digits, the 'public' line of `skwad keygen`")
        }
        if !on, key == admin?.publicKey {
            throw NodeError("that is this node's own admin key (admin_secret_file): it is always trusted")
        }
        var keys = config.adminKeys
        if on {
            guard !keys.contains(key) else { return (key, false) }; keys.append(key)
        } else {
            guard keys.contains(key) else { return (key, false) }
            keys.removeAll { $0 == key }
        }
        let file = config.writableConfigFile
        do {
            let old = FileManager.default.fileExists(atPath: file) ? try String(contentsOfFile: file, encoding: .utf8) : ""
            let new = try NodeConfig.settingAdminKeys(keys, in: old, baseDir: (file as NSString).deletingLastPathComponent)
            try NodeConfig.writeConfig(new, to: file)
        } catch let e as ConfigError { throw NodeError(e.description) } catch {
            throw NodeError("config: cannot write \(file): \((error as NSError).localizedDescription)")
        }
        config.adminKeys = keys
        try rebuildReplica()
        return (key, true)
    }

    /// The replica again from the store, under the current admin keys: whether a pack is an
    /// admin pack (permanent) is decided when its genesis is admitted.
    func rebuildReplica() throws {
        var rc = replica.config
        rc.adminKeys = Set(config.adminKeys)
        if let admin { rc.adminKeys.insert(admin.publicKey) }
        var fresh = Replica(config: rc)
        do {
            let loaded = try store.loadOps()
            fresh.restore(loaded.ops, tombstones: try store.loadTombstones(), own: Set(joined.keys))
        } catch { throw NodeError("\(error)") }
        replica = fresh
        upkeep.idLength = (-1, 8)
    }
}
