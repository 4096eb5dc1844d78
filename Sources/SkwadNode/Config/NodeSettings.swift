import SkwadCrypto
import SkwadModel

/// The settings tree: every key a node's config file may hold, in the order `skwad config`
/// prints them. Each setting's default is the default of the `NodeConfig` property it sets
/// (the per-peer limits: of `GossipConfig.Limits`', through `NodeConfig.gossip.limits`).
extension NodeConfig {
    public static var settings: [Setting] {
        [
            Setting(
                table: nil, key: "data_dir",
                doc: [
                    "Where master.key (mode 0600), skwad.sqlite and the REPL history live.",
                    "Default: $SKWAD_DATA if set, else ~/.skwad. Relative paths are relative to this file."
                ],
                write: { c in c.dataDir == defaultDataDir ? nil : tomlString(c.dataDir) }, example: tomlString("~/.skwad"),
                sample: tomlString("/var/lib/skwad"),
                read: { c, v, r in
                    guard let s = v.string, !s.isEmpty else { throw r.fail("expected a directory path") }
                    c.dataDir = r.path(s)
                }),
            Setting(
                table: nil, key: "location",
                doc: ["Your self-reported location, \"LAT,LON\" (also: --location, or `locate` in the REPL)."],
                write: { c in c.location.map { tomlString("\($0.lat),\($0.lon)") } }, example: tomlString("40.4433,-79.9436"),
                sample: tomlString("40.4433,-79.9436"),
                read: { c, v, r in
                    guard let s = v.string else { throw r.fail("expected \"LAT,LON\"") }
                    do { c.location = try GeoPoint(parsing: s) } catch { throw r.fail("\(error)") }
                }),
            .integer(
                "geohash_precision", \.geohashPrecision, 1...12,
                doc: ["Geohash precision of the location claims this node makes (1-12; 7 is about 150 m)."]),
            .integer(
                "pow_bits", \.powBits, 0...Int(Limits.maxPowBits),
                doc: ["Proof-of-work bits every pseudonym must show in the packs this node creates (0-\(Limits.maxPowBits))."]),
            .integer(
                "max_clock_skew_ms", \.maxClockSkewMs, 1_000...300_000, unit: "milliseconds",
                doc: [
                    "Ops stamped more than this many milliseconds ahead of your clock are rejected",
                    "(1000-300000; one minute by default: a shared window is what keeps nodes agreeing)."
                ]),
            Setting(
                table: nil, key: "admin_keys",
                doc: [
                    "Admin public keys (hex): their packs are permanent and they moderate any pack.",
                    "`trust KEY` / `untrust KEY` in the REPL rewrite this line (in DATA/config.toml without --config)."
                ],
                write: { c in "[" + c.adminKeys.map { tomlString($0.hex) }.joined(separator: ", ") + "]" }, example: nil,
                sample: "[\(tomlString(String(repeating: "ab", count: 32)))]",
                read: { c, v, r in
                    c.adminKeys = try r.strings(v).map { hex in
                        guard let b = Hex.decode(hex), let k = try? PublicKey(bytes: b) else {
                            throw r.fail("'\(hex)' is not a 64-hex-digit public key")
                        }
                        return k
                    }
                }),
            .text(
                "admin_secret_file", \.adminSecretFile, example: "admin.key", sample: "/etc/skwad/admin.key",
                doc: ["A file holding this node's admin secret seed (hex, from `skwad keygen`): campus nodes."],
                check: { s, r in
                    guard !s.isEmpty else { throw r.fail("expected a file path") }
                    return r.path(s)
                }),
            .texts(
                "admin_packs", \.adminPacks, sample: "campus",
                doc: ["Admin packs this node creates at start when it holds the admin secret."]),
            Setting(
                table: nil, key: "listen",
                doc: ["UDP gossip listen address \"HOST:PORT\" (also: --listen): every interface, a port the OS picks."],
                write: { c in tomlString(c.listen) }, example: nil, sample: tomlString("127.0.0.1:7400"),
                read: { c, v, r in
                    guard let s = v.string, s.contains(":") else { throw r.fail("expected \"HOST:PORT\"") }
                    c.listen = s
                }),
            .texts(
                "peers", \.peers, sample: "127.0.0.1:7401",
                doc: ["Seed peers, \"HOST:PORT\" each, joined through at start (also: --peer)."],
                check: { p, r in if !p.contains(":") { throw r.fail("'\(p)' is not HOST:PORT") } }),
            .flag("offline", \.offline, doc: ["No network at all: no socket, no beacon (also: --offline)."]),
            .flag(
                "lan_beacon", \.lanBeacon,
                doc: [
                    "Find neighbours on the local network: a small broadcast beacon (never routed off the link;",
                    "it names only our gossip port), sent while listening on a non-loopback address."
                ]),
            .integer("lan_beacon_port", \.lanBeaconPort, 1...65535, doc: ["The UDP port of the LAN beacon."]),
            .flag("headless", \.headless, doc: ["Run without the REPL (a campus node)."]),
            .positive(
                table: "limits", "peer_datagrams_per_second", \.gossip.limits.peerDatagramsPerSecond,
                doc: ["Datagrams per second accepted from one peer."]),
            .positive(
                table: "limits", "peer_bytes_per_second", \.gossip.limits.peerBytesPerSecond,
                doc: ["Bytes per second accepted from one peer."]),
            .positive(
                table: "limits", "pseudonym_ops_per_minute", \.gossip.limits.pseudonymOpsPerMinute,
                doc: ["Ops per minute accepted from one pseudonym."]),
            Setting(
                table: "limits", key: "picture_store_mb",
                doc: [
                    "Megabytes of pictures kept; past it the least recently used pictures of packs you are",
                    "not in are deleted."
                ],
                write: { c in tomlNumber(Double(c.pictureStoreBytes) / 1_048_576) }, example: nil, sample: "1024",
                read: { c, v, r in
                    guard let n = v.double ?? v.int.map(Double.init), n > 0 else { throw r.fail("expected a positive number") }
                    guard n <= 1_048_576 else { throw r.fail("expected at most 1048576 (1 TiB)") }
                    c.pictureStoreBytes = Int(n * 1_048_576)
                }),
            .choice(
                table: "pictures", "fetch", \.pictureFetch,
                doc: [
                    "When a post's picture is fetched from the neighbours: \"arrival\" (when the post",
                    "arrives) or \"shown\" (when feed, show or open first displays the post: less traffic,",
                    "a moment's wait the first time)."
                ])
        ]
    }

    /// The embedded default configuration, generated from `settings`, every key documented.
    /// `skwad config` prints it; a file passed with `--config` overrides it key by key (unknown
    /// keys are errors), and command-line flags override the file. Parsing this text gives
    /// `embeddedDefault` (a test holds it).
    public static let defaultTOML = toml(
        embeddedDefault, header: ["Skwad node configuration (TOML). Every key is optional; these are the defaults."])
}
