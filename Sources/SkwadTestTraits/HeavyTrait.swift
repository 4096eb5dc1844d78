import Testing

/// `@Suite(.heavy)`: every test of the suite runs on `LowPriorityExecutor`, off Swift's
/// cooperative pool. For tests that compute for more than a fraction of a second without
/// awaiting, so that one `swift test` process runs them beside the tests on wall-clock time.
public struct HeavyTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(LowPriorityExecutor.shared) { try await function() }
    }
}

extension Trait where Self == HeavyTrait {
    /// Runs the suite's tests off the cooperative pool, at a lower priority (`HeavyTrait`).
    public static var heavy: Self { HeavyTrait() }
}
