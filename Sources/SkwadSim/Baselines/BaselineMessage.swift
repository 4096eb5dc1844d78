/// A message of the baseline strategies: which pack, and a set of that pack's ops.
///
/// Byte model (what each message is charged on the wire, on top of the scenario's
/// per-datagram `header_bytes`): 8 bytes naming the pack, then
/// - ops carried (push, push-pull, pull reply, rumor): their real envelope sizes;
/// - a digest (pull request): 8 bytes per op the sender holds (an id-prefix list);
/// - feedback (rumor mongering): 8 bytes per op the receiver already knew, and with the
///   counter variant also 8 bytes per op that was news to it (a necessary contact, which
///   resets the sender's counter for that rumor).
/// Anti-entropy push and push-pull send the sender's whole set for the pack: this is the
/// naive anti-entropy of Demers et al. (compare whole databases), not an efficient
/// reconciliation, and the redundancy figures show it.
public struct BaselineMessage: Sendable {
    public enum Kind: UInt8, Sendable {
        /// Anti-entropy push: here is everything I hold.
        case push
        /// Anti-entropy pull: here is what I hold (digest); send me what I lack.
        case pullRequest
        /// The ops the requester lacked.
        case pullReply
        /// Push-pull: here is everything I hold; answer with what I lack.
        case pushPull
        /// Rumor mongering: my hot rumors.
        case rumor
        /// Rumor feedback: these of your rumors I already knew (`ops`), and, for the counter
        /// variant, these were news to me (`fresh`).
        case feedback
    }
    public var kind: Kind
    public var pack: Int32
    public var ops: OpBits
    /// Feedback only: the rumors that were news to the receiver (a necessary contact).
    public var fresh = OpBits()

    static let packTagBytes = 8
    static let digestEntryBytes = 8
}
