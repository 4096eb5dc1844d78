extension NodeConfig {
    /// The embedded default configuration, every key documented. `skwad config` prints it;
    /// a file passed with `--config` overrides it key by key (unknown keys are errors), and
    /// command-line flags override the file. Parsing this text gives `embeddedDefault`.
    public static let defaultTOML = """
        # Skwad node configuration (TOML). Every key is optional; these are the defaults.

        # Where master.key (mode 0600), skwad.sqlite and the REPL history live.
        # Default: $SKWAD_DATA if set, else ~/.skwad. Relative paths are relative to this file.
        # data_dir = "~/.skwad"

        # Your self-reported location, "LAT,LON" (also: --location, or `locate` in the REPL).
        # location = "40.4433,-79.9436"

        # Geohash precision of the location claims this node makes (1-12; 7 is about 150 m).
        geohash_precision = 7

        # Proof-of-work bits every pseudonym must show in the packs this node creates (0-28).
        pow_bits = 16

        # Ops stamped more than this many milliseconds ahead of your clock are rejected
        # (1000-300000; one minute by default: a shared window is what keeps nodes agreeing).
        max_clock_skew_ms = 60000

        # Admin public keys (hex): their packs are permanent and they moderate any pack.
        # `trust KEY` / `untrust KEY` in the REPL rewrite this line (in DATA/config.toml without --config).
        admin_keys = []

        # A file holding this node's admin secret seed (hex, from `skwad keygen`): campus nodes.
        # admin_secret_file = "admin.key"

        # Admin packs this node creates at start when it holds the admin secret.
        admin_packs = []

        # UDP gossip: listen address "HOST:PORT" (unset: every interface, a port the OS picks)
        # and seed peers. `offline = true` (or --offline): no network at all.
        # listen = "0.0.0.0:7400"
        peers = []
        offline = false

        # Find neighbours on the local network: a small broadcast beacon on this UDP port (never
        # routed off the link; it names only our gossip port), sent while listening on a
        # non-loopback address.
        lan_beacon = true
        lan_beacon_port = 7399

        # Run without the REPL (a campus node).
        headless = false

        [limits]
        # Per peer: datagrams and bytes per second accepted.
        peer_datagrams_per_second = \(tomlNumber(gossipDefaults.peerDatagramsPerSecond))
        peer_bytes_per_second = \(tomlNumber(gossipDefaults.peerBytesPerSecond))
        # Ops per minute accepted from one pseudonym.
        pseudonym_ops_per_minute = \(tomlNumber(gossipDefaults.pseudonymOpsPerMinute))
        # Megabytes of pictures kept; past it the least recently used pictures of packs you are
        # not in are deleted.
        picture_store_mb = 256

        [pictures]
        # When a post's picture is fetched from the neighbours: "arrival" (when the post
        # arrives) or "shown" (when feed, show or open first displays the post: less traffic,
        # a moment's wait the first time).
        fetch = "arrival"
        """

    /// A TOML number: an integer when whole (the limits' defaults), a float otherwise.
    private static func tomlNumber(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)
    }
}
