/// A moment the client's I/O loop must act on for one call; kept in ``ClientTimerLanes``, earliest first.
struct ClientTimer: Comparable {
    enum Kind {
        /// The caller stops waiting: the request fails `timedOut`.
        case deadline
        /// The coordinator's answer is overdue: ask once more in case a reply was lost.
        case lastChance
    }

    let at: ContinuousClock.Instant
    /// The call it acts on; once the call is settled the timer does nothing (an idempotency
    /// key reused by a later call is another call).
    let call: PendingCall
    let kind: Kind

    static func < (lhs: ClientTimer, rhs: ClientTimer) -> Bool { lhs.at < rhs.at }
    static func == (lhs: ClientTimer, rhs: ClientTimer) -> Bool { lhs.at == rhs.at && lhs.call === rhs.call }
}
