/// Where ``AnalyticsReporting`` sends analytics events: a backend of the host's choosing.
public protocol AnalyticsProvider: Sendable {
    /// A tracked action began.
    func analyticsActionBegan(id: String, event: ActionDispatchEvent)
    /// A tracked action ended with `outcome`.
    func analyticsActionEnded(id: String, event: ActionDispatchEvent, outcome: ActionOutcomeSummary)
}

extension AnalyticsProvider {
    /// Does nothing.
    public func analyticsActionBegan(id: String, event: ActionDispatchEvent) {}
}

/// Flint's `AnalyticsReporting`: a dispatch observer that reports the actions that declare an
/// ``Action/analyticsID``, and only those, to an ``AnalyticsProvider``.
///
/// ```swift
/// ActionDispatcher.shared.addObserver(AnalyticsReporting(provider: MyBackend()))
/// ```
public struct AnalyticsReporting: ActionDispatchObserver {
    /// Where the events go.
    public let provider: any AnalyticsProvider

    /// Reports to `provider`.
    public init(provider: any AnalyticsProvider) {
        self.provider = provider
    }

    public func actionWillBegin(_ event: ActionDispatchEvent) {
        guard let id = event.analyticsID else { return }
        provider.analyticsActionBegan(id: id, event: event)
    }

    public func actionDidComplete(_ event: ActionDispatchEvent, outcome: ActionOutcomeSummary) {
        guard let id = event.analyticsID else { return }
        provider.analyticsActionEnded(id: id, event: event, outcome: outcome)
    }
}
