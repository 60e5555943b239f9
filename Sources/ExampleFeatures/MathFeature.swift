import ActionCore

/// `Math`: CPU work on a concurrent pool.
public enum MathFeature: Feature {
    /// "Math".
    public static let name = "Math"
    /// "Computes numbers".
    public static let description = "Computes numbers"

    /// `Math.fibonacci {"n"}` → `{"value"}`, on a concurrent executor.
    public static let fibonacci = action(FibonacciAction.self)

    /// Declares `fibonacci`.
    public static func prepare(actions: inout FeatureActions) {
        actions.declare(fibonacci)
    }
}

/// Computes the n-th Fibonacci number (F(0) = 0, F(1) = 1) on a concurrent executor.
public enum FibonacciAction: Action {
    /// The largest n whose Fibonacci number fits in a `UInt64`.
    public static let maximumN = 93

    /// Which number to compute.
    public struct Input: Codable, Sendable, Hashable {
        /// The index, from 0 to ``FibonacciAction/maximumN``.
        public var n: Int

        /// Creates an input.
        public init(n: Int) {
            self.n = n
        }
    }

    /// The computed number.
    public struct Output: Codable, Sendable, Hashable {
        /// F(n).
        public var value: UInt64

        /// Creates an output.
        public init(value: UInt64) {
            self.value = value
        }
    }

    /// "Computes the n-th Fibonacci number".
    public static let description = "Computes the n-th Fibonacci number"

    /// A concurrent pool: independent computations run side by side.
    public static let executor = ActionExecutorSelection.executor(
        DispatchQueueExecutor(label: "ExampleFeatures.Math", attributes: .concurrent)
    )

    /// Computes F(n); n outside 0...93 is invalid input.
    public static func perform(context: ActionContext<Input>, completion: Completion) -> Completion.Status {
        let n = context.input.n
        guard (0...maximumN).contains(n) else {
            let error = ActionError(code: .invalidInput, message: "n must be between 0 and \(maximumN), got \(n)")
            return completion.completedSync(.failure(error))
        }
        return completion.completedSync(.success(Output(value: fibonacci(n))))
    }

    /// F(n) by iteration.
    static func fibonacci(_ n: Int) -> UInt64 {
        var (current, next): (UInt64, UInt64) = (0, 1)
        for _ in 0..<n {
            (current, next) = (next, current &+ next)
        }
        return current
    }
}
