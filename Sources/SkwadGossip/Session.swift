import SkwadCrypto

/// Frame layout (PROTOCOL.md §8): magic "SK", version 1, type, then
///   HELLO   (1): client kx public key (32), zero padding to 200 bytes in all
///   WELCOME (2): server kx public key (32), BLAKE2b-128 of the client key (16)
///   DATA    (3): counter (8, big-endian), XChaCha20-Poly1305 ciphertext of a `Message`
/// DATA uses the direction's crypto_kx session key, nonce = 16 zero bytes || counter,
/// and the 12 header bytes as associated data.
enum Frame {
    static let magic: [UInt8] = [0x53, 0x4B]
    static let version: UInt8 = 1
    static let hello: UInt8 = 1, welcome: UInt8 = 2, data: UInt8 = 3
    static let helloSize = 200
    static let dataHeader = 12
    static let maxDatagram = 1200
    static var maxPlaintext: Int { maxDatagram - dataHeader - AEAD.tagCount }

    static func header(_ type: UInt8) -> [UInt8] { magic + [version, type] }

    static func nonce(_ counter: UInt64) -> [UInt8] {
        var n = [UInt8](repeating: 0, count: 16)
        withUnsafeBytes(of: counter.bigEndian) { n += $0 }
        return n
    }
}

/// One secure session with one address: keys, counters, replay window, and the
/// anti-amplification budget while the address is unverified.
struct Session: Sendable {
    enum Role: Sendable { case initiator, responder }
    let role: Role
    let localKx: KxKeyPair
    var rx: [UInt8] = []
    var tx: [UInt8] = []
    var established = false
    /// The peer proved it receives at this address (a DATA frame authenticated).
    var verified = false
    var sendCounter: UInt64 = 0
    var highestReceived: UInt64 = 0
    var window: UInt64 = 0   // bit i: counter (highestReceived - i) seen
    var anyReceived = false
    var bytesReceivedUnverified = 0
    var bytesSentUnverified = 0
    var queued: [[UInt8]] = []          // plaintexts waiting for the handshake
    var helloSentAtMs: UInt64 = 0
    var helloAttempts = 0
    var helloBytes: [UInt8] = []

    init(role: Role, localKx: KxKeyPair) { self.role = role; self.localKx = localKx }

    mutating func completeAsInitiator(serverKey: [UInt8]) -> Bool {
        guard let keys = try? localKx.clientSessionKeys(serverPublicKey: serverKey) else { return false }
        rx = keys.rx; tx = keys.tx; established = true; verified = true   // the WELCOME proves the address
        return true
    }

    mutating func completeAsResponder(clientKey: [UInt8]) -> Bool {
        guard let keys = try? localKx.serverSessionKeys(clientPublicKey: clientKey) else { return false }
        rx = keys.rx; tx = keys.tx; established = true
        return true
    }

    mutating func seal(_ plaintext: [UInt8]) -> [UInt8]? {
        sendCounter += 1
        var header = Frame.header(Frame.data)
        withUnsafeBytes(of: sendCounter.bigEndian) { header += $0 }
        guard let ct = try? AEAD.seal(plaintext, additionalData: header, nonce: Frame.nonce(sendCounter), key: tx) else { return nil }
        return header + ct
    }

    enum OpenResult { case plaintext([UInt8]), replay, failed }

    /// Decrypts a DATA frame and enforces the 64-counter sliding replay window.
    mutating func open(_ datagram: [UInt8]) -> OpenResult {
        guard datagram.count > Frame.dataHeader + AEAD.tagCount else { return .failed }
        var counter: UInt64 = 0
        for b in datagram[4..<12] { counter = counter << 8 | UInt64(b) }
        if anyReceived {
            if counter + 64 <= highestReceived { return .replay }
            if counter <= highestReceived && (window >> (highestReceived - counter)) & 1 == 1 { return .replay }
        }
        guard let pt = try? AEAD.open(Array(datagram[12...]), additionalData: Array(datagram[0..<12]),
                                      nonce: Frame.nonce(counter), key: rx) else { return .failed }
        if !anyReceived { highestReceived = counter; window = 1; anyReceived = true }
        else if counter > highestReceived {
            let shift = counter - highestReceived
            window = shift >= 64 ? 1 : (window << shift) | 1
            highestReceived = counter
        } else {
            window |= 1 << (highestReceived - counter)
        }
        verified = true
        return .plaintext(pt)
    }

    /// Anti-amplification: before the address is verified, send at most 3× what it sent.
    func mayAmplify(_ n: Int) -> Bool { verified || bytesSentUnverified + n <= 3 * bytesReceivedUnverified }
}
