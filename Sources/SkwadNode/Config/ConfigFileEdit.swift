import Foundation
import SkwadCrypto

/// Rewriting one key of a config file (`trust`/`untrust` in the REPL write `admin_keys`):
/// every other line, comment and table stays as it was.
extension NodeConfig {
    /// The config file of a node run without `--config`: read at start when present, and
    /// where `trust` writes.
    public static let dataDirConfigName = "config.toml"

    /// What a config file made by `trust` starts with.
    static let writtenHeader = """
        # Written by `trust`/`untrust` in the REPL; read at start when skwad runs without --config
        # (then data_dir is this file's directory). Any key `skwad config` prints may be added.

        """

    /// `text` with its top-level `admin_keys` set to `keys`: the assignment (over as many lines
    /// as its array spans) replaced, or added before the first table. The result is parsed back
    /// and must hold exactly `keys`, else nothing is written and the user edits the file.
    static func settingAdminKeys(_ keys: [PublicKey], in text: String, baseDir: String?) throws -> String {
        var lines =
            text.isEmpty
            ? writtenHeader.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            : text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let value: [String]
        if keys.count <= 1 {
            value = ["admin_keys = [" + keys.map { "\"\($0.hex)\"" }.joined() + "]"]
        } else {
            value = ["admin_keys = ["] + keys.map { "    \"\($0.hex)\"," } + ["]"]
        }
        let firstTable = lines.firstIndex { $0.drop { $0 == " " || $0 == "\t" }.first == "[" } ?? lines.count
        if let start = lines[..<firstTable].firstIndex(where: assignsAdminKeys) {
            guard let (end, tail) = endOfArray(lines, from: start) else {
                throw ConfigError("config: cannot find where admin_keys ends (line \(start + 1)); edit the file by hand")
            }
            lines.replaceSubrange(start...end, with: value.dropLast() + [value.last! + tail])
        } else {
            // After the last top-level line that is neither blank nor a comment (the comments
            // just above the first table are that table's).
            var at = firstTable
            let table = at < lines.count
            while at > 0, lines[at - 1].trimmingCharacters(in: .whitespaces).isEmpty || (table && lines[at - 1].hasPrefix("#")) { at -= 1 }
            let gap = at < lines.count && !lines[at].trimmingCharacters(in: .whitespaces).isEmpty ? [""] : []
            lines.insert(contentsOf: value + gap, at: at)
        }
        var out = lines.joined(separator: "\n")
        if !out.hasSuffix("\n") { out += "\n" }
        let back = try parse(out, baseDir: baseDir)
        guard back.adminKeys == keys else {
            throw ConfigError("config: editing admin_keys did not give the keys asked for; edit the file by hand")
        }
        return out
    }

    static func assignsAdminKeys(_ line: String) -> Bool {
        let t = line.trimmingCharacters(in: .whitespaces)
        for spelled in ["admin_keys", "\"admin_keys\"", "'admin_keys'"] where t.hasPrefix(spelled) {
            if t.dropFirst(spelled.count).trimmingCharacters(in: .whitespaces).hasPrefix("=") { return true }
        }
        return false
    }

    /// The line where the array assigned on line `start` closes, and what follows the closing
    /// bracket on it (a comment, kept). Strings and comments are skipped.
    static func endOfArray(_ lines: [String], from start: Int) -> (Int, String)? {
        var depth = 0, opened = false
        for i in start..<lines.count {
            var chars = Array(lines[i])[...]
            if i == start, let eq = chars.firstIndex(of: "=") { chars = chars[(eq + 1)...] }
            var quote: Character?
            while let c = chars.first {
                chars = chars.dropFirst()
                if let q = quote {
                    if c == "\\" && q == "\"" { chars = chars.dropFirst() } else if c == q { quote = nil }
                    continue
                }
                switch c {
                case "\"", "'": quote = c
                case "#": chars = chars[chars.endIndex...]
                case "[": depth += 1; opened = true
                case "]":
                    depth -= 1
                    if opened && depth == 0 { return (i, String(chars)) }
                default: break
                }
            }
            if !opened { return nil }  // `admin_keys =` not followed by an array on its line
        }
        return nil
    }

    /// Writes `text` to `path` through a temporary file and a rename, mode 0600.
    static func writeConfig(_ text: String, to path: String) throws {
        let tmp = path + ".tmp"
        guard FileManager.default.createFile(atPath: tmp, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw ConfigError("config: cannot write \(tmp)")
        }
        guard rename(tmp, path) == 0 else {
            unlink(tmp)
            throw ConfigError("config: cannot replace \(path): \(String(cString: strerror(errno)))")
        }
    }
}
