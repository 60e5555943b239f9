/// Something that runs an action's code in the right place: a thread, a serial queue, a pool
/// (the *Executors* seed's `Executor`; Flint itself runs actions on dispatch queues).
///
/// Actions declare their executor (see ``Action/executor``); the session hops to it once and
/// delivers completion back on it when the caller chose no completion queue. `DispatchQueue`
/// and `OperationQueue` are executors too, by extension.
public protocol ActionExecutor: Sendable {
    /// A name for logs, when it has one.
    var name: String? { get }

    /// Whether the calling code is already running on this executor (the seed's `executing`).
    var isCurrent: Bool { get }

    /// Runs `work` on this executor, now or later.
    func submit(_ work: @escaping @Sendable () -> Void)

    /// Runs `work` on this executor, which counts as busy until `work` calls `end` (exactly once,
    /// from any thread): the seed's `submit { end in }`.
    ///
    /// A serial executor (``SerialQueueExecutor``) starts nothing else meanwhile, so work that
    /// finishes asynchronously is serialised whole, not just its synchronous part. Executors
    /// that run several blocks at once start other work anyway (the default).
    func submit(_ work: @escaping @Sendable (_ end: @escaping @Sendable () -> Void) -> Void)
}

extension ActionExecutor {
    /// Runs `work` inline when already on this executor, otherwise submits it: no needless hop.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        if isCurrent {
            work()
        } else {
            submit(work)
        }
    }

    /// Runs `work` without waiting for its `end`: the executor does not count as busy.
    public func submit(_ work: @escaping @Sendable (_ end: @escaping @Sendable () -> Void) -> Void) {
        submit { work {} }
    }

    /// Runs `work` on this executor and returns what it returns: the seed's value-returning
    /// `submit` (a `Future` there, an `async` call here; named apart from `submit` so that a
    /// trailing closure in async code still means ``submit(_:)-(()->Void)``).
    public func value<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            submit { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Runs `work` on this executor, which counts as busy until `work` resolves (the seed's
    /// `submit { resolver in }`): `resolve` takes the value or the error, once, from any thread.
    public func value<Value: Sendable>(
        resolving work: @escaping @Sendable (_ resolve: @escaping @Sendable (Result<Value, any Error>) -> Void) -> Void
    ) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            submit { end in
                work { result in
                    end()
                    continuation.resume(with: result)
                }
            }
        }
    }
}
