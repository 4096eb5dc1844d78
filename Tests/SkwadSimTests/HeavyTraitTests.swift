import Foundation
import SkwadTestTraits
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The `.heavy` trait moves a test (or every test of a suite) onto `LowPriorityExecutor`:
/// threads of its own at nice 10, so that a long simulation never holds a thread of Swift's
/// cooperative pool.
@Suite struct HeavyTraitTests {
    /// This thread's nice value, and the process's (its main thread's on Linux).
    static func niceness() -> (thread: Int32, process: Int32) {
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        return (getpriority(which, 0), getpriority(which, id_t(getpid())))
    }

    @Test(.heavy) func aHeavyTestRunsOnALowPriorityThreadOfItsOwn() {
        #expect(LowPriorityExecutor.isCurrent)
        let nice = Self.niceness()
        #expect(nice.thread == min(nice.process + 10, 19))
    }

    @Test(.heavy) func anAwaitInAHeavyTestResumesOnTheSameThreads() async throws {
        try await Task.sleep(nanoseconds: 1_000_000)
        #expect(LowPriorityExecutor.isCurrent)
    }

    @Test func aTestWithoutTheTraitRunsOnTheCooperativePool() {
        #expect(!LowPriorityExecutor.isCurrent)
        let nice = Self.niceness()
        #expect(nice.thread == nice.process)
    }
}
