import Testing
import SkwadNode

/// `WorkingSet.trimStartupCode` (README, "Memory") drops only pages that equal their file:
/// after it, this process keeps running code and reading constants, and holds less
/// resident memory than before.
@Suite struct WorkingSetTests {
    @Test func trimmingUnmapsCleanFilePagesAndTheProcessGoesOn() throws {
        #if os(Linux)
        let before = try #require(ProcessMemory.residentBytes())
        let advised = WorkingSet.trimStartupCode()
        // This test binary and the Swift runtime are executable file mappings.
        #expect(advised > 1_000_000)
        let after = try #require(ProcessMemory.residentBytes())
        #expect(after < before)
        // Code and read-only data fault back in: hashing, string tables, generics all work.
        let words = (0..<1000).map { "w\($0)" }
        #expect(Set(words).count == 1000)
        #expect(words.sorted().first == "w0")
        #endif
    }
}
