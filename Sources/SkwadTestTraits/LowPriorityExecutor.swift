import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Threads of their own, outside Swift's cooperative pool, at a lower scheduling priority
/// (nice 10): the executor of the `.heavy` tests. A test that computes for seconds without
/// awaiting (a simulation, a property run) holds the thread it runs on; on the cooperative
/// pool (as many threads as cores) it would starve the tests that run on wall-clock time
/// (nodes, the REPL, child processes) of the threads their timeouts need. Here it holds one of
/// these threads instead, and the kernel gives the real-time tests the cores first.
public final class LowPriorityExecutor: TaskExecutor, @unchecked Sendable {
    /// One thread per core: the heavy tests use every core the real-time tests leave idle.
    public static let shared = LowPriorityExecutor(threads: ProcessInfo.processInfo.activeProcessorCount)

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var next = 0
    private var threads: [pthread_t] = []

    /// Is the caller on one of the shared executor's threads?
    public static var isCurrent: Bool {
        shared.condition.lock()
        defer { shared.condition.unlock() }
        return shared.threads.contains(pthread_self())
    }

    init(threads: Int) {
        for _ in 0..<max(1, threads) { Thread { [unowned self] in self.serve() }.start() }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Runs jobs in the order they came, for as long as the process lives.
    private func serve() {
        condition.lock()
        threads.append(pthread_self())
        condition.unlock()
        #if canImport(Glibc)
            // On Linux the nice value is per thread, and `who` 0 names the calling one.
            let which = __priority_which_t(PRIO_PROCESS.rawValue)
            _ = setpriority(which, 0, min(getpriority(which, 0) + 10, 19))
        #endif
        while true {
            condition.lock()
            while next == jobs.count { condition.wait() }
            let job = jobs[next]
            next += 1
            // Jobs run are dropped once all have run, or once they are half the array.
            if next == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                next = 0
            } else if next >= 1024 && next * 2 >= jobs.count {
                jobs.removeFirst(next)
                next = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
