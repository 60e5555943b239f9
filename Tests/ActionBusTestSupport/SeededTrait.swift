import Testing

/// The `.seeded` trait: the test (each of its cases) gets a ``TestSeed`` and every issue it
/// records says which.
package struct SeededTrait: TestTrait, SuiteTrait, TestScoping {
    package var isRecursive: Bool { true }

    package func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite's scope is entered once for the suite and again for each test; only the
        // tests' own scopes draw seeds.
        guard testCase != nil else {
            try await function()
            return
        }
        let seed = TestSeed.pick()
        let note = TestSeed.replayNote(seed)
        let annotate = IssueHandlingTrait.compactMapIssues { issue in
            var issue = issue
            issue.comments.append(note)
            return issue
        }
        try await TestSeed.$chosen.withValue(seed) {
            try await annotate.provideScope(for: test, testCase: testCase, performing: function)
        }
    }
}

extension Trait where Self == SeededTrait {
    /// Random inputs from one seed, printed with every issue the test records.
    package static var seeded: Self { SeededTrait() }
}
