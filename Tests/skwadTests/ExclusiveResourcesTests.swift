import Foundation
import Testing
#if canImport(Glibc)
    import Glibc
#endif

/// Finding 2 at the process level: a node's UDP port and its data directory belong to one
/// process. A second `skwad` is refused with one line and exit status 2.
@Suite struct ExclusiveResourcesTests {
    @Test func listeningOnAPortInUseIsOneLineAndExitTwo() throws {
        // Hold a UDP port on 127.0.0.1 (OS-chosen) without SO_REUSEADDR.
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: addr.sin_port))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-port-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try BinaryTests.run(["--data", dir, "--listen", "127.0.0.1:\(port)"], input: "quit\n")
        #expect(r.status == 2)
        let lines = r.err.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("127.0.0.1:\(port)") && lines[0].contains("in use"), "\(r.err)")
    }

    @Test func aSecondProcessOnTheSameDataDirectoryIsOneLineAndExitTwo() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skwad-lock-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // First run creates the directory; then this process holds the lock as a node would.
        #expect(try BinaryTests.run(["--data", dir, "--offline"], input: "quit\n").status == 0)
        let fd = open(dir + "/lock", O_RDWR | O_CREAT, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        try #require(flock(fd, LOCK_EX | LOCK_NB) == 0)
        let r = try BinaryTests.run(["--data", dir, "--offline"], input: "quit\n")
        #expect(r.status == 2)
        let lines = r.err.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains(dir) && lines[0].contains("in use"), "\(r.err)")
        // Released, the directory opens again.
        flock(fd, LOCK_UN)
        #expect(try BinaryTests.run(["--data", dir, "--offline"], input: "quit\n").status == 0)
    }
}
