import Foundation

/// Permissions of the data directory (issue 10, finding 7). It holds the master key, the
/// user's exact location, joined packs and the stamps that link the user's pseudonyms:
/// the directory must be 0700 and its files 0600. Modes are fixed when the user owns the
/// path (one notice line says what changed); a `master.key` others may read is refused,
/// as ssh refuses a private key with loose permissions.
public enum FilePermissions {
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// The restrictive umask the node runs under (files 0600, directories 0700).
    public static func restrictUmask() { umask(0o077) }

    static func mode(_ path: String) -> (mode: UInt16, owner: uid_t)? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return (UInt16(st.st_mode & 0o7777), st.st_uid)
    }

    static func octal(_ m: UInt16) -> String { "0" + String(m, radix: 8) }

    /// Refuses a key file that group or others may read or write.
    public static func checkSecretFile(_ path: String) throws {
        guard let m = mode(path), m.mode & 0o077 != 0 else { return }
        throw Problem(
            description:
                "permissions \(octal(m.mode)) for '\(path)' are too open: it must be readable by you alone "
                + "(chmod 600 '\(path)'); refusing to use it"
        )
    }

    /// Tightens the directory to 0700 and its regular files to 0600 when the current user
    /// owns them. Returns one notice line when anything changed, nil otherwise. `master.key`
    /// is left alone here (it is refused, not fixed: see `checkSecretFile`).
    public static func secure(dataDir: String) -> String? {
        var fixed: [String] = []
        let me = getuid()
        if let d = mode(dataDir), d.owner == me, d.mode & 0o077 != 0, chmod(dataDir, 0o700) == 0 {
            fixed.append("\(dataDir) \(octal(d.mode))→0700")
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dataDir)) ?? []
        for name in names.sorted() where name != "master.key" {
            let path = dataDir + "/" + name
            var st = stat()
            guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_uid == me else { continue }
            let m = UInt16(st.st_mode & 0o7777)
            if m & 0o077 != 0, chmod(path, 0o600) == 0 { fixed.append("\(name) \(octal(m))→0600") }
        }
        return fixed.isEmpty ? nil : "notice: tightened permissions of your data: " + fixed.joined(separator: ", ")
    }
}
