import Foundation
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

/// An exclusive `flock` on `<dataDir>/lock`, held while a node has its data directory open,
/// so a second process (or a second `Node` in this one) cannot share the store and keys.
/// The kernel releases it when the descriptor closes, including on a crash.
final class DataDirLock: Sendable {
    private let fd: Mutex<Int32>

    init(dataDir: String) throws {
        do {
            try FileManager.default.createDirectory(
                atPath: dataDir, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch { throw NodeError("cannot create data directory \(dataDir): \((error as NSError).localizedDescription)") }
        let path = dataDir + "/lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw NodeError("cannot open \(path): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw NodeError("data directory \(dataDir) is in use by another skwad process")
        }
        self.fd = Mutex(fd)
    }

    /// Gives the directory up (idempotent).
    func release() {
        fd.withLock { if $0 >= 0 { close($0); $0 = -1 } }
    }

    deinit { release() }
}
