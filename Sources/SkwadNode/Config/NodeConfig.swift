import Foundation
import SkwadCrypto
import SkwadGossip
import SkwadModel
import TOMLKit

/// A configuration problem: one line naming the key (and the line in the file when known).
public struct ConfigError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ d: String) { description = d }
}

/// Everything a node is configured with. Defaults are the embedded device config
/// (`NodeConfig.embeddedDefault`); a TOML file overrides them key by key, and command-line
/// flags override the file. The keys a file may hold are `settings` (NodeSettings.swift), each
/// stated once; `defaultTOML` (printed by `skwad config`) is generated from them.
public struct NodeConfig: Sendable, Equatable {
    /// Where the store and the master key live. Default: $SKWAD_DATA, else ~/.skwad.
    public var dataDir: String
    /// The user's self-reported location (DESIGN §5: locations are claims, not proofs).
    public var location: GeoPoint?
    /// Geohash precision of the location claims this node makes (1–12; 7 ≈ 150 m cells).
    public var geohashPrecision: Int = 7
    /// Proof-of-work bits every pseudonym must show in packs this node creates.
    public var powBits: UInt32 = 16
    /// Ops stamped more than this far ahead of local time are rejected (`clockAhead`).
    public var maxClockSkewMs: UInt64 = 60_000
    /// Admin public keys (hex): admin packs are permanent; admins moderate any pack.
    public var adminKeys: [PublicKey] = []
    /// A file holding this node's admin secret seed (hex), for campus nodes.
    public var adminSecretFile: String?
    /// Admin packs this node creates at start when it holds the admin secret.
    public var adminPacks: [String] = []
    /// UDP listen address (unless `offline`).
    public var listen = defaultListen
    /// Every interface, a port the OS picks: the one default of the listen address.
    public static let defaultListen = "0.0.0.0:0"
    /// No network at all (`--offline`): no socket, no beacon.
    public var offline = false
    /// Find neighbours on the local network by broadcast beacons (PROTOCOL §9, "LAN beacon"),
    /// on this UDP port, when listening on a non-loopback address.
    public var lanBeacon = true
    public var lanBeaconPort = 7399
    /// Seed peers, HOST:PORT.
    public var peers: [String] = []
    /// Run without the REPL (a campus node).
    public var headless = false
    /// The gossip engine's parameters. The config file sets three of them (`[limits]`: datagrams
    /// and bytes per second per peer, ops per minute per pseudonym, which the node's own rate
    /// limit also uses: `gossip.limits`); their defaults are `GossipConfig`'s, stated there once.
    public var gossip = GossipConfig()
    /// Bytes of pictures kept (PROTOCOL §10b): past it, the least recently used pictures of
    /// packs this node is not a member of are deleted. Config: `[limits] picture_store_mb`.
    public var pictureStoreBytes: Int = 256 << 20
    /// When a post's picture is fetched (PROTOCOL §10b): when the post arrives, or when
    /// `feed`, `show` or `open` first displays it. Config: `[pictures] fetch`.
    public var pictureFetch: PictureFetch = .arrival
    public enum PictureFetch: String, Sendable, Equatable, CaseIterable { case arrival, shown }
    /// Where the store lives. Not a config key and not a flag: `load`/`parse` and every
    /// command leave it `.file`, the only durable choice.
    public var store: StoreLocation = .file
    /// The proof-of-work floors this node's replica enforces and its own stamps meet
    /// (PROTOCOL §2: `PowFloor`, 16 bits per pseudonym, 18 per genesis). Not a config key and
    /// not a flag: `load`/`parse` and every command leave `PowFloors.protocolFloors`. Only the
    /// REPL fuzzer's offline node runs with `.none` (an 18-bit genesis stamp takes about a
    /// second to mint in a sanitizer build); peers keep their floors and would reject its ops.
    public var powFloors: PowFloors = .protocolFloors
    /// The file this config was read from (`load`), where `trust`/`untrust` write
    /// `admin_keys`; nil: `<dataDir>/config.toml` (`dataDirConfigName`). Not a config key.
    public var configFile: String?

    /// Stamp-work floors, in leading zero bits.
    public struct PowFloors: Sendable, Equatable {
        public var pseudonym: UInt32
        public var genesis: UInt32
        public init(pseudonym: UInt32, genesis: UInt32) { self.pseudonym = pseudonym; self.genesis = genesis }
        public static let protocolFloors = PowFloors(pseudonym: PowFloor.pseudonymBits, genesis: PowFloor.genesisBits)
        public static let none = PowFloors(pseudonym: 0, genesis: 0)
    }

    /// Where a node keeps its SQLite store.
    public enum StoreLocation: Sendable, Equatable {
        /// `<dataDir>/skwad.sqlite`, WAL, committed before a command reports done.
        case file
        /// A private in-memory database that vanishes when the node does: nothing survives a
        /// restart. Only for the REPL fuzzer (`FuzzREPL`), which opens a fresh node per input;
        /// never for a user's node. The master key and the lock still live in `dataDir`.
        case memory
    }

    public init(dataDir: String) { self.dataDir = dataDir }

    public static var defaultDataDir: String {
        if let d = ProcessInfo.processInfo.environment["SKWAD_DATA"], !d.isEmpty { return d }
        return (ProcessInfo.processInfo.environment["HOME"] ?? ".") + "/.skwad"
    }

    /// The embedded default: a device node, online on a port the OS picks, finding neighbours
    /// on the local network.
    public static var embeddedDefault: NodeConfig { NodeConfig(dataDir: defaultDataDir) }
    /// toml++ (under TOMLKit) asserts, instead of reporting an error, when a table header
    /// does not start with a key (`[= 1]`; found by FuzzConfig): refuse such a line first.
    /// A line starting with `[` must go on, after `[` or `[[` and blanks, with a bare key
    /// character or a quote.
    static func checkTableHeaders(_ text: String) throws {
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            // A byte-order mark (toml++ skips one at the start) counts as a blank: `\u{FEFF}[>`
            // hid a keyless header from this check (found by FuzzConfig, 2026-11-23).
            var rest = raw.drop { $0 == " " || $0 == "\t" || $0 == "\u{FEFF}" }
            guard rest.first == "[" else { continue }
            rest = rest.dropFirst()
            if rest.first == "[" { rest = rest.dropFirst() }
            rest = rest.drop { $0 == " " || $0 == "\t" }
            let c = rest.unicodeScalars.first ?? "\n"
            let ok =
                (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9") || c == "_" || c == "-"
                || c == "\"" || c == "'" || c == "]"
            if !ok { throw ConfigError("config: a table header must start with a key at line \(n + 1)") }
        }
    }

    /// toml++ also asserts on a closing bracket that does not match the one opened (`[}`;
    /// found by FuzzConfig): outside strings and comments, `[`/`]` and `{`/`}` must nest.
    static func checkBrackets(_ text: String) throws {
        var stack: [(Character, Int)] = []
        var line = 1
        var quote: String?  // the string delimiter we are inside, if any
        var comment = false
        var chars = Array(text)[...]
        while let c = chars.first {
            if c == "\n" { line += 1; comment = false; if quote == "\"" || quote == "'" { quote = nil } }
            if comment { chars = chars.dropFirst(); continue }
            if let q = quote {
                if c == "\\" && q.hasPrefix("\"") { chars = chars.dropFirst(min(2, chars.count)); continue }
                if chars.starts(with: Array(q)) { quote = nil; chars = chars.dropFirst(q.count); continue }
                chars = chars.dropFirst(); continue
            }
            switch c {
            case "#": comment = true
            case "\"", "'":
                let triple = String(repeating: c, count: 3)
                quote = chars.starts(with: Array(triple)) ? triple : String(c)
                chars = chars.dropFirst(quote!.count); continue
            case "[", "{": stack.append((c, line))
            case "]", "}":
                guard let (open, _) = stack.popLast(), (open == "[") == (c == "]") else {
                    throw ConfigError("config: '\(c)' does not close an open bracket at line \(line)")
                }
            default: break
            }
            chars = chars.dropFirst()
        }
        if let (open, at) = stack.last { throw ConfigError("config: '\(open)' opened at line \(at) is never closed") }
    }

    /// Parses a TOML config over the embedded default. Relative paths are taken relative to
    /// `baseDir` (the config file's directory).
    public static func parse(_ text: String, baseDir: String? = nil) throws -> NodeConfig {
        try checkTableHeaders(text)
        try checkBrackets(text)
        let table: TOMLTable
        do { table = try TOMLTable(string: text) } catch let e as TOMLParseError {
            throw ConfigError("config: \(e.description) at line \(e.source.begin.line), column \(e.source.begin.column)")
        }
        func line(_ key: String) -> String {
            // TOMLKit keeps no positions for values: find the line that assigns the key
            // (`key =`, `"key" =`, `key.sub =`) or opens its table (`[key]`).
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let i = lines.firstIndex { raw in
                let t = raw.trimmingCharacters(in: .whitespaces)
                if t.hasPrefix("[\(key)]") || t.hasPrefix("[[\(key)]]") { return true }
                for spelled in [key, "\"\(key)\"", "'\(key)'"] where t.hasPrefix(spelled) {
                    let rest = t.dropFirst(spelled.count).trimmingCharacters(in: .whitespaces)
                    if rest.hasPrefix("=") || rest.hasPrefix(".") { return true }
                }
                return false
            }
            return i.map { " (line \($0 + 1))" } ?? ""
        }
        func bad(_ key: String, _ what: String) -> ConfigError { ConfigError("config: key '\(key)'\(line(key)): \(what)") }
        return try read(table, baseDir: baseDir, bad: bad)
    }

    public static func load(file: String, cwd: String = FileManager.default.currentDirectoryPath) throws -> NodeConfig {
        let text: String
        let readable = file.hasPrefix("/") ? file : configDirectory(of: file, cwd: cwd) + "/" + (file as NSString).lastPathComponent
        do { text = try String(contentsOfFile: readable, encoding: .utf8) } catch {
            throw ConfigError("config: cannot read \(file): \((error as NSError).localizedDescription)")
        }
        var c = try parse(text, baseDir: configDirectory(of: file, cwd: cwd))
        c.configFile = configDirectory(of: file, cwd: cwd) + "/" + (file as NSString).lastPathComponent
        return c
    }

    /// The config of a node run without `--config`: `<dataDir>/config.toml` when it exists
    /// (written by `trust`; its `data_dir`, if any, is ignored: the file lives in the data
    /// directory), else the embedded default.
    public static func loadDefault(dataDir: String) throws -> NodeConfig {
        let file = dataDir + "/" + dataDirConfigName
        var c = FileManager.default.fileExists(atPath: file) ? try load(file: file) : embeddedDefault
        c.dataDir = dataDir
        c.configFile = file
        return c
    }

    /// Where `trust`/`untrust` write: the config file, else `<dataDir>/config.toml`.
    public var writableConfigFile: String { configFile ?? dataDir + "/" + Self.dataDirConfigName }

    /// The absolute directory of a config file: relative paths inside it are taken from
    /// there. A file given as a bare name (`--config node.toml`) lives in the current
    /// directory, not in `/`.
    static func configDirectory(of file: String, cwd: String = FileManager.default.currentDirectoryPath) -> String {
        let dir = (file as NSString).deletingLastPathComponent
        if dir.hasPrefix("/") { return dir }
        if dir.isEmpty { return cwd }
        return (cwd.hasSuffix("/") ? cwd : cwd + "/") + dir
    }
}
