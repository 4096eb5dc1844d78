import Foundation
import SkwadStore
import SkwadCrypto

/// The node's secrets on disk: `master.key` (32 bytes, mode 0600) in the data directory.
enum KeyFile {
    static func loadOrCreateMaster(dataDir: String) throws -> MasterSecret {
        let fm = FileManager.default
        do {
            try fm.createDirectory(atPath: dataDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch { throw NodeError("cannot create data directory \(dataDir): \((error as NSError).localizedDescription)") }
        let path = dataDir + "/master.key"
        if fm.fileExists(atPath: path) {
            do { try FilePermissions.checkSecretFile(path) } catch { throw NodeError("\(error)") }
        }
        if let data = fm.contents(atPath: path) {
            guard let secret = try? MasterSecret(bytes: [UInt8](data)) else {
                throw NodeError("\(path) is not a 32-byte master key; move it away to start a new identity")
            }
            return secret
        }
        let secret = MasterSecret.generate()
        guard fm.createFile(atPath: path, contents: Data(secret.bytes), attributes: [.posixPermissions: 0o600]) else {
            throw NodeError("cannot write \(path)")
        }
        return secret
    }

    /// An admin secret file holds a 64-hex-digit Ed25519 seed (see `skwad keygen`).
    static func loadAdmin(path: String) throws -> SigningKeyPair {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw NodeError("cannot read admin secret file \(path)")
        }
        guard let seed = Hex.decode(text.trimmingCharacters(in: .whitespacesAndNewlines)), let key = try? SigningKeyPair(seed: seed) else {
            throw NodeError("\(path) must hold a 64-hex-digit seed (make one with `skwad keygen`)")
        }
        return key
    }
}
