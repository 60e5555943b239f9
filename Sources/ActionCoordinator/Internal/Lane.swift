import ActionWire

/// Where a queued request waits: its session's lane (requests leave in submission order, to the
/// session's host), or, without a session, its action's lane.
enum Lane: Hashable {
    case session(String)
    case action(String)

    init(_ request: WireRequest) {
        self = request.session.isEmpty ? .action(request.action) : .session(request.session)
    }
}
