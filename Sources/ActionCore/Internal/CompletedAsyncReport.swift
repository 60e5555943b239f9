import Synchronization

/// Carries a perform's `completedAsync` to a caller's ``ActionCompletionRequirement``: set when
/// the outcome is delivered (once true, it stays true: an outcome after a retry's wait came
/// asynchronously whatever the last attempt did).
final class CompletedAsyncReport: Sendable {
    private let value = Atomic(false)

    func record(_ completedAsync: Bool) {
        if completedAsync { value.store(true, ordering: .releasing) }
    }

    var completedAsync: Bool { value.load(ordering: .acquiring) }
}
