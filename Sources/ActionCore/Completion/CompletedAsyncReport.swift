import Synchronization

/// Carries a perform's `completedAsync` to a caller's ``ActionCompletionRequirement``: set when
/// the outcome is delivered (once true, it stays true: an outcome after a retry's wait came
/// asynchronously whatever the last attempt did).
@usableFromInline
final class CompletedAsyncReport: Sendable {
    private let value = Atomic(false)

    @usableFromInline
    func record(_ completedAsync: Bool) {
        if completedAsync { value.store(true, ordering: .releasing) }
    }

    @usableFromInline
    var completedAsync: Bool { value.load(ordering: .acquiring) }
}
