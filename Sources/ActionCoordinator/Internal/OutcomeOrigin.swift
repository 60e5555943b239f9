/// What the coordinator keeps of the request behind a finished outcome: enough to tell a true
/// resend (same input, same owner) from a reuse of the request id.
struct OutcomeOrigin {
    /// The digest of the request's input (``InputDigest``).
    let inputDigest: UInt64
    /// Who first sent it; `nil` for a request recovered from the journal. The request's own
    /// reference, not a copy of the address: an outcome kept costs one retain, not three.
    let sender: RequestSender?

    /// The client that first sent it.
    var firstSender: ClientAddress? { sender?.address }
}
