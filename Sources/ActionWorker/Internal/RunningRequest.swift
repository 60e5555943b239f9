import ActionCore

/// A request a worker is running: where it runs and how to stop it.
struct RunningRequest {
    /// Its session, held here so that finishing the request needs no second lookup by name
    /// (a hosted session is never let go while it runs a request).
    let hosted: HostedSession
    /// Set once the perform is dispatched (until then, `.none`): what a client's CANCEL uses.
    var cancel = ActionCancelHandle.none
}
