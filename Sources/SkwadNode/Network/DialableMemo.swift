import Synchronization
import SkwadGossip

/// `PeerAddress.isDialable` remembered for up to `capacity` addresses (emptied when full):
/// the engine asks it of every datagram's source and every destination, so the text is not
/// parsed each time.
final class DialableMemo: Sendable {
    static let capacity = 1024
    private let known = Mutex<[PeerAddress: Bool]>([:])

    func isDialable(_ address: PeerAddress) -> Bool {
        if let answer = known.withLock({ $0[address] }) { return answer }
        let answer = address.isDialable
        known.withLock { table in
            if table.count >= Self.capacity { table.removeAll(keepingCapacity: true) }
            table[address] = answer
        }
        return answer
    }
}
