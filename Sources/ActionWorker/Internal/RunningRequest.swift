import ActionCore

/// A request a worker is running: where it runs and how to stop it.
struct RunningRequest {
    let sessionName: String
    let cancellation: ActionCancellation
}
