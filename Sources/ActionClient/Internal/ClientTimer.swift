/// A moment the client's I/O loop must act on for one request; kept in a heap, earliest first.
struct ClientTimer: Comparable {
    enum Kind {
        /// The caller stops waiting: the request fails `timedOut`.
        case deadline
        /// The coordinator's answer is overdue: ask once more in case a reply was lost.
        case lastChance
    }

    let at: ContinuousClock.Instant
    let requestID: String
    /// The call's submission order: a timer left over from an earlier call that reused the id
    /// (an idempotency key) does not act on the new one.
    let order: UInt64
    let kind: Kind

    static func < (lhs: ClientTimer, rhs: ClientTimer) -> Bool { lhs.at < rhs.at }
    static func == (lhs: ClientTimer, rhs: ClientTimer) -> Bool { lhs.at == rhs.at && lhs.requestID == rhs.requestID }
}
