import Foundation
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

/// An exclusive `flock` on `<dataDir>/lock`, held while a node has its data directory open,
/// so a second process (or a second `Node` in this one) cannot share the store and keys.
/// The kernel releases it when the descriptor closes, including on a crash.
///
/// A held lock is retried for up to `waitMs` before giving up: a child process spawned by
/// this one holds a copy of the descriptor from `fork` until `exec` closes it (`O_CLOEXEC`),
/// so a directory closed a moment ago can still look locked for that long.
final class DataDirLock: Sendable {
    private let fd: Mutex<Int32>

    /// How long a held lock is retried, and how often.
    static let defaultWaitMs = 1_000
    static let retryMs = 20

    init(dataDir: String, waitMs: Int = DataDirLock.defaultWaitMs) throws {
        do {
            try FileManager.default.createDirectory(
                atPath: dataDir, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch { throw NodeError("cannot create data directory \(dataDir): \((error as NSError).localizedDescription)") }
        let path = dataDir + "/lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw NodeError("cannot open \(path): \(String(cString: strerror(errno)))") }
        var waited = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let why = errno
            guard why == EWOULDBLOCK || why == EINTR else {
                close(fd)
                throw NodeError("cannot lock \(path): \(String(cString: strerror(why)))")
            }
            guard waited < waitMs else {
                close(fd)
                throw NodeError("data directory \(dataDir) is in use by another skwad process")
            }
            usleep(useconds_t(Self.retryMs * 1_000))
            waited += Self.retryMs
        }
        self.fd = Mutex(fd)
    }

    /// Gives the directory up (idempotent).
    func release() {
        fd.withLock { if $0 >= 0 { close($0); $0 = -1 } }
    }

    deinit { release() }
}
