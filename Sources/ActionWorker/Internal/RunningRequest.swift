import ActionCore

/// A request a worker is running: where it runs and how to stop it.
struct RunningRequest {
    /// Its session, held here so that finishing the request needs no second lookup by name
    /// (a hosted session is never let go while it runs a request).
    let hosted: HostedSession
    /// The READY it came after (the worker's count): its result may be let go on a heartbeat
    /// mark's answer only if that is still the registration then (``RecentResults``).
    let registration: UInt64
    /// Set once the perform is dispatched (until then, `.none`): what a client's CANCEL uses.
    var cancel = ActionCancelHandle.none
}
