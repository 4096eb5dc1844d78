import Foundation
import SkwadCrypto
import SkwadStore

/// Carrying an identity to a second device (`skwad identity export` / `import`, PROTOCOL §2
/// "Identity transfer"): the data directory's `master.key` sealed under a passphrase
/// (`PassphraseSeal`), as one line of text, `skwad-identity:` and the blob in base64. Both
/// devices then hold the same master secret, so the same pseudonym in every pack.
public enum IdentityTransfer {
    public static let prefix = "skwad-identity:"

    /// What an import did.
    public enum Imported: Equatable, Sendable {
        /// The data directory had no identity: it has this one now.
        case installed
        /// It held this very identity already: nothing changed.
        case unchanged
        /// It held another, kept beside it under this name.
        case replaced(keptAs: String)
    }

    /// The sealed identity of `dataDir`, as one line.
    public static func export(dataDir: String, passphrase: String, work: PassphraseSeal.WorkFactor = .standard) throws -> String {
        let path = dataDir + "/master.key"
        guard FileManager.default.fileExists(atPath: path) else {
            throw NodeError("\(dataDir) holds no identity yet (run a node there once, or import one)")
        }
        let master = try KeyFile.loadOrCreateMaster(dataDir: dataDir)
        do {
            return prefix + Data(try PassphraseSeal.seal(master.bytes, passphrase: passphrase, work: work)).base64EncodedString()
        } catch let e as PassphraseError { throw NodeError("\(e)") }
    }

    /// Installs the identity that `text` seals into `dataDir`. Everything is checked before
    /// anything is written: a wrong passphrase, a damaged text, or another identity already
    /// there without `replace` changes nothing. With `replace`, the old `master.key` is kept
    /// as `master.key.replaced-<unix time>`; the new one is written to a temporary file and
    /// renamed over, so a crash leaves one whole key.
    public static func install(_ text: String, passphrase: String, dataDir: String, replace: Bool, nowSeconds: Int) throws -> Imported {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix(prefix), let blob = Data(base64Encoded: String(trimmed.dropFirst(prefix.count))) else {
            throw NodeError("not a sealed identity: it starts with '\(prefix)' and is one line of base64 (copied whole?)")
        }
        let master: MasterSecret
        do { master = try MasterSecret(bytes: try PassphraseSeal.open([UInt8](blob), passphrase: passphrase)) } catch let e
            as PassphraseError
        { throw NodeError("\(e)") } catch { throw NodeError("the sealed identity holds no 32-byte master key") }

        let fm = FileManager.default
        let path = dataDir + "/master.key"
        do {
            try fm.createDirectory(atPath: dataDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch { throw NodeError("cannot create data directory \(dataDir): \((error as NSError).localizedDescription)") }
        var outcome = Imported.installed
        if fm.fileExists(atPath: path) {
            let current = try KeyFile.loadOrCreateMaster(dataDir: dataDir)
            if current == master { return .unchanged }
            guard replace else {
                throw NodeError(
                    "\(dataDir) already holds another identity; --replace keeps it as master.key.replaced-<time> and installs this one")
            }
            let kept = "master.key.replaced-\(nowSeconds)"
            do { try fm.copyItem(atPath: path, toPath: dataDir + "/" + kept) } catch {
                throw NodeError("cannot keep the current identity as \(kept): \((error as NSError).localizedDescription)")
            }
            outcome = .replaced(keptAs: kept)
        }
        let temporary = path + ".importing"
        try? fm.removeItem(atPath: temporary)
        guard fm.createFile(atPath: temporary, contents: Data(master.bytes), attributes: [.posixPermissions: 0o600]) else {
            throw NodeError("cannot write \(temporary)")
        }
        guard rename(temporary, path) == 0 else {
            try? fm.removeItem(atPath: temporary)
            throw NodeError("cannot install \(path): \(String(cString: strerror(errno)))")
        }
        return outcome
    }
}
