import SkwadCrypto

/// Frame layout (PROTOCOL.md §8): magic "SK", version 1, type, then
///   HELLO   (1): client kx public key (32), cookie (16, zeros when none), zero padding to 200 bytes
///   WELCOME (2): server kx public key (32), BLAKE2b-128 of the client key (16)
///   DATA    (3): counter (8, big-endian), XChaCha20-Poly1305 ciphertext of a `Message`
///   COOKIE  (4): cookie (16), BLAKE2b-128 of the client key (16)
/// DATA uses the direction's crypto_kx session key, nonce = 16 zero bytes || counter,
/// and the 12 header bytes as associated data.
enum Frame {
    static let magic: [UInt8] = [0x53, 0x4B]
    static let version: UInt8 = 1
    static let hello: UInt8 = 1, welcome: UInt8 = 2, data: UInt8 = 3, cookie: UInt8 = 4
    static let helloSize = 200
    static let welcomeSize = 52
    static let cookieSize = 36
    static let dataHeader = 12
    static let maxDatagram = 1200
    static var maxPlaintext: Int { maxDatagram - dataHeader - AEAD.tagCount }

    static func header(_ type: UInt8) -> [UInt8] { magic + [version, type] }

    /// A DATA frame's 12 header bytes (magic, version, type, big-endian counter) as a value
    /// on the stack: the same bytes as `header(data)` followed by the counter.
    /// Four bytes then two 4-byte halves: no padding (`MemoryLayout<DataHeader>.size` is 12).
    struct DataHeader {
        var magic0: UInt8 = 0x53, magic1: UInt8 = 0x4B, version: UInt8 = Frame.version, type: UInt8 = Frame.data
        var counterHigh: UInt32, counterLow: UInt32
        init(counter: UInt64) {
            counterHigh = UInt32(truncatingIfNeeded: counter >> 32).bigEndian
            counterLow = UInt32(truncatingIfNeeded: counter).bigEndian
        }
    }

    /// `nonce(counter)` as a value on the stack: 16 zero bytes, then the big-endian counter.
    struct Nonce {
        var zero0: UInt64 = 0, zero1: UInt64 = 0
        var counter: UInt64
        init(counter: UInt64) { self.counter = counter.bigEndian }
    }

    /// HELLO with `cookie` (16 bytes) echoed, or zeros.
    static func helloFrame(publicKey: [UInt8], cookie: [UInt8]?) -> [UInt8] {
        var f = header(hello) + publicKey + (cookie ?? [UInt8](repeating: 0, count: 16))
        f += [UInt8](repeating: 0, count: helloSize - f.count)
        return f
    }

    /// The big-endian counter of a DATA frame (caller checked the length).
    static func counter(of datagram: [UInt8]) -> UInt64 {
        var c: UInt64 = 0
        for b in datagram[4..<12] { c = c << 8 | UInt64(b) }
        return c
    }
}

/// Sliding anti-replay window of 64 counters (RFC 6479, WireGuard `replay.c`): the highest
/// counter accepted and a bitmap of the 64 counters at and below it. Written so that no
/// arithmetic on a counter can overflow: only `highest - c` with `c <= highest`, and
/// `c - highest` with `c > highest`. Counters 0 and 2^64-1 are never valid (a sender counts
/// 1...2^64-2), so a frame carrying them is refused before decryption.
struct ReplayWindow: Sendable, Equatable {
    static let size: UInt64 = 64
    private(set) var highest: UInt64 = 0  // 0: nothing accepted yet (0 is never valid)
    private(set) var bitmap: UInt64 = 0  // bit i: counter (highest - i) accepted

    static func isValid(_ c: UInt64) -> Bool { c != 0 && c != .max }

    /// Could `c` be accepted (not too old, not seen)? Does not change the window.
    func mayAccept(_ c: UInt64) -> Bool {
        guard Self.isValid(c) else { return false }
        if c > highest { return true }
        let behind = highest - c
        guard behind < Self.size else { return false }
        return (bitmap >> behind) & 1 == 0
    }

    /// Marks `c` accepted; call only after `mayAccept(c)` and authentication.
    mutating func accept(_ c: UInt64) {
        if c > highest {
            let shift = c - highest
            bitmap = shift >= Self.size ? 1 : (bitmap << shift) | 1
            highest = c
        } else {
            bitmap |= 1 << (highest - c)
        }
    }
}

/// One secure session with one address, as a state machine (after swift-nio's): each state
/// carries only its legal data, and every input is a `mutating` method.
///
/// - `phase`: an initiator starts in `.awaitingWelcome` (its HELLO sent) and moves to `.keyed`
///   on the WELCOME; a responder starts `.keyed` (it derived the keys from the HELLO). Never back.
/// - `proof`: `.unproven` (with the anti-amplification budget: bytes received from and sent to
///   the address) until the peer proves it receives there — a DATA frame that authenticates,
///   or for an initiator the WELCOME — then `.proven`. Never back.
/// - `role`: a responder keeps the client key and its WELCOME, so that a repeated HELLO (our
///   WELCOME was lost) gets the same WELCOME, not new keys.
struct Session: Sendable {
    enum Role: Sendable, Equatable {
        case initiator
        case responder(clientKey: Bytes32)
    }
    /// The direction keys, the send counter and the replay window of a keyed session: held
    /// inline (a node keeps hundreds of sessions; arrays cost a heap buffer each).
    struct Keys: Sendable {
        let rx: Bytes32
        let tx: Bytes32
        var sendCounter: UInt64 = 0
        var replay = ReplayWindow()

        init?(rx: [UInt8], tx: [UInt8]) {
            guard let r = Bytes32(rx), let t = Bytes32(tx) else { return nil }
            self.rx = r; self.tx = t
        }
    }
    enum Phase: Sendable {
        /// Initiator: HELLO (`hello`, with a cookie once one came) sent `attempts` times; the
        /// key pair it offered, kept until WELCOME gives the session keys.
        case awaitingWelcome(kx: KxKeyPair, hello: [UInt8], attempts: Int, sentAtMs: UInt64)
        case keyed(Keys)
    }
    enum Proof: Sendable, Equatable {
        case unproven(received: Int, sent: Int)
        case proven
    }

    let role: Role
    /// Our public key of this session's key exchange (the secret is dropped once keyed).
    let localPublic: Bytes32
    private(set) var phase: Phase
    private(set) var proof: Proof
    /// Plaintexts waiting for the handshake, or for the anti-amplification budget.
    var queued: [[UInt8]] = []
    let createdMs: UInt64
    /// When we first sent on this session after last hearing from the peer (nil: it has
    /// answered since). A session silent for `silentSessionMs` while we send is dropped, and
    /// the next message starts a new handshake (the peer may have dropped its end).
    var unansweredSinceMs: UInt64?
    /// A responder session made while our own HELLO to the same peer was unanswered: the two
    /// HELLOs crossed (a simultaneous open, `SecureChannels.receiveData`).
    var crossed = false

    /// An initiator whose first HELLO goes out now.
    init(initiatorWith localKx: KxKeyPair, nowMs: UInt64) {
        role = .initiator; localPublic = Bytes32(localKx.publicKey)!; createdMs = nowMs
        phase = .awaitingWelcome(
            kx: localKx, hello: Frame.helloFrame(publicKey: localKx.publicKey, cookie: nil), attempts: 1, sentAtMs: nowMs)
        proof = .proven  // an initiator sends only what it chose to; only a responder is budgeted
    }

    /// A responder to a HELLO of `helloBytes` bytes carrying `clientKey`: keyed at once, its
    /// WELCOME ready; nil when the key is not a valid X25519 key.
    init?(responderWith localKx: KxKeyPair, clientKey: [UInt8], helloBytes: Int, nowMs: UInt64) {
        guard let client = Bytes32(clientKey), let pair = try? localKx.serverSessionKeys(clientPublicKey: clientKey),
            let keys = Keys(rx: pair.rx, tx: pair.tx)
        else { return nil }
        role = .responder(clientKey: client); localPublic = Bytes32(localKx.publicKey)!; createdMs = nowMs
        phase = .keyed(keys)
        proof = .unproven(received: helloBytes, sent: 0)
    }

    var isInitiator: Bool { role == .initiator }
    /// The initiator's key-exchange public key: ours for an initiator, the peer's for a responder.
    var initiatorKey: Bytes32 { if case .responder(let client) = role { client } else { localPublic } }
    var established: Bool { if case .keyed = phase { true } else { false } }
    /// Keyed, and the peer proved it receives at this address.
    var verified: Bool { established && proof == .proven }
    /// Responder sessions that have not authenticated a DATA frame, and initiators still
    /// waiting for WELCOME: a stranger may have made them.
    var unproven: Bool { !verified }
    var clientKey: Bytes32? { if case .responder(let k) = role { k } else { nil } }
    var localPublicKey: [UInt8] { localPublic.bytes }
    /// A responder's WELCOME (the same bytes each time: a repeated HELLO gets it again).
    var welcome: [UInt8]? {
        guard case .responder(let k) = role else { return nil }
        return Frame.header(Frame.welcome) + localPublic.bytes + Blake2b.hash(k.bytes, outputCount: 16)
    }
    /// Initiator still waiting: its HELLO, how often sent, when last.
    var hello: (bytes: [UInt8], attempts: Int, sentAtMs: UInt64)? {
        if case .awaitingWelcome(_, let h, let a, let t) = phase { (h, a, t) } else { nil }
    }
    var keys: Keys? { if case .keyed(let k) = phase { k } else { nil } }
    /// What both ends of a keyed session hold and nobody else: BLAKE2b-256 over its two
    /// direction keys in byte order (PROTOCOL §9 "Contact codes"); nil before it is keyed.
    var binding: [UInt8]? {
        guard let k = keys else { return nil }
        let a = k.rx.bytes, b = k.tx.bytes
        let (low, high) = a.lexicographicallyPrecedes(b) ? (a, b) : (b, a)
        return Blake2b.hash256(Array("skwad/session-binding/v1".utf8) + low + high)
    }

    func age(_ nowMs: UInt64) -> UInt64 { nowMs > createdMs ? nowMs - createdMs : 0 }

    /// WELCOME: `.awaitingWelcome` → `.keyed`, proven. False (and no change) otherwise.
    mutating func completeAsInitiator(serverKey: [UInt8]) -> Bool {
        guard case .awaitingWelcome(let kx, _, _, _) = phase, let pair = try? kx.clientSessionKeys(serverPublicKey: serverKey),
            let keys = Keys(rx: pair.rx, tx: pair.tx)
        else { return false }
        phase = .keyed(keys)
        proof = .proven
        return true
    }

    /// Sends the HELLO again (`cookie`: with the cookie a COOKIE frame gave). Returns the
    /// HELLO to send, or nil when there is none to send (keyed, or the same HELLO again for a cookie).
    mutating func resendHello(nowMs: UInt64, cookie: [UInt8]? = nil) -> [UInt8]? {
        guard case .awaitingWelcome(let kx, let old, let attempts, _) = phase else { return nil }
        if let cookie {
            let hello = Frame.helloFrame(publicKey: kx.publicKey, cookie: cookie)
            guard hello != old else { return nil }
            phase = .awaitingWelcome(kx: kx, hello: hello, attempts: attempts, sentAtMs: nowMs)
            return hello
        }
        phase = .awaitingWelcome(kx: kx, hello: old, attempts: attempts + 1, sentAtMs: nowMs)
        return old
    }

    /// Counts bytes received from the unproven address (its budget grows).
    mutating func received(_ n: Int) {
        if case .unproven(let r, let s) = proof { proof = .unproven(received: r + n, sent: s) }
    }

    /// Counts bytes sent to the unproven address against its budget.
    mutating func sent(_ n: Int) {
        if case .unproven(let r, let s) = proof { proof = .unproven(received: r, sent: s + n) }
    }

    /// Encrypts one DATA frame; nil when the keys are missing or the counter is exhausted.
    /// The header and nonce are built on the stack and the frame in one buffer (this runs
    /// for every datagram sent).
    mutating func seal(_ plaintext: [UInt8]) -> [UInt8]? {
        guard case .keyed(var k) = phase, k.sendCounter < UInt64.max - 1 else { return nil }
        k.sendCounter += 1
        let counter = k.sendCounter
        phase = .keyed(k)
        let header = Frame.DataHeader(counter: counter), nonce = Frame.Nonce(counter: counter)
        return withUnsafeBytes(of: header) { h in
            withUnsafeBytes(of: nonce) { n in
                try? AEAD.sealFrame(header: h, plaintext, nonce: n, key: k.tx)
            }
        }
    }

    enum OpenResult { case plaintext([UInt8]), replay, failed }

    /// Decrypts a DATA frame and enforces the replay window; an authenticated frame proves
    /// the address. A frame that fails changes nothing.
    mutating func open(_ datagram: [UInt8]) -> OpenResult {
        guard case .keyed(var k) = phase, datagram.count > Frame.dataHeader + AEAD.tagCount else { return .failed }
        let counter = Frame.counter(of: datagram)
        guard k.replay.mayAccept(counter) else { return .replay }
        let nonce = Frame.Nonce(counter: counter)
        guard
            let pt = withUnsafeBytes(
                of: nonce, { n in try? AEAD.open(frame: datagram, headerCount: Frame.dataHeader, nonce: n, key: k.rx) })
        else { return .failed }
        k.replay.accept(counter)
        phase = .keyed(k)
        proof = .proven
        return .plaintext(pt)
    }

    /// Anti-amplification: before the address is verified, send at most 3× what it sent.
    func mayAmplify(_ n: Int) -> Bool {
        guard case .unproven(let r, let s) = proof else { return true }
        return s + n <= 3 * r
    }

    /// May a DATA frame carrying `plaintext` go out within that budget?
    func maySend(_ plaintext: [UInt8]) -> Bool { mayAmplify(plaintext.count + Frame.dataHeader + AEAD.tagCount) }

    /// Seals a DATA frame and counts it against the budget while the address is unverified.
    mutating func sealCounted(_ plaintext: [UInt8]) -> [UInt8]? {
        guard let frame = seal(plaintext) else { return nil }
        sent(frame.count)
        return frame
    }
}
