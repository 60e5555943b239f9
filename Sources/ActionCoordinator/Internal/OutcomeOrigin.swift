/// What the coordinator keeps of the request behind a finished outcome: enough to tell a true
/// resend (same input, same owner) from a reuse of the request id.
struct OutcomeOrigin {
    /// The digest of the request's input (``InputDigest``).
    let inputDigest: UInt64
    /// The client that first sent it; `nil` for a request recovered from the journal.
    let firstSender: ClientAddress?
}
