import SkwadCrypto

/// Stateless address validation under handshake load (WireGuard §5.4.7 cookie reply, QUIC
/// Retry): when HELLOs come faster than the engine's handshake budget, a HELLO without a
/// valid cookie gets a 36-byte COOKIE frame and no key exchange, no state. A cookie is a
/// keyed BLAKE2b-128 over the source address under a secret derived from a random master
/// key and the time bucket (`epochMs`); it is accepted in its bucket and the next one.
struct CookieJar: Sendable {
    let master: [UInt8]
    let epochMs: UInt64

    init(master: [UInt8], epochMs: UInt64) { self.master = master; self.epochMs = max(1, epochMs) }

    func cookie(for address: PeerAddress, nowMs: UInt64) -> [UInt8] { cookie(for: address, epoch: nowMs / epochMs) }

    func cookie(for address: PeerAddress, epoch: UInt64) -> [UInt8] {
        var e: [UInt8] = []
        withUnsafeBytes(of: epoch.bigEndian) { e += $0 }
        let secret = Blake2b.hash(e, outputCount: 32, key: master)
        return Blake2b.hash(Array(address.value.utf8), outputCount: 16, key: secret)
    }

    func isValid(_ c: [UInt8], for address: PeerAddress, nowMs: UInt64) -> Bool {
        let epoch = nowMs / epochMs
        if c == cookie(for: address, epoch: epoch) { return true }
        return epoch > 0 && c == cookie(for: address, epoch: epoch - 1)
    }

    /// The COOKIE frame answering a HELLO that carried `clientKey`.
    func frame(for address: PeerAddress, clientKey: [UInt8], nowMs: UInt64) -> [UInt8] {
        Frame.header(Frame.cookie) + cookie(for: address, nowMs: nowMs) + Blake2b.hash(clientKey, outputCount: 16)
    }
}
