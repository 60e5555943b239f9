import ServiceLifecycle

/// Waits until the calling task is cancelled or a graceful shutdown begins (returning `nil`),
/// or until `fatalErrors` yields the error that must stop the service on its own (returned).
func waitForShutdownOrFatalError(
    _ fatalErrors: AsyncStream<any Error>, sink: AsyncStream<any Error>.Continuation
) async -> (any Error)? {
    await cancelWhenGracefulShutdown {
        await withTaskCancellationHandler {
            for await error in fatalErrors { return error }
            return nil
        } onCancel: {
            sink.finish()
        }
    }
}
