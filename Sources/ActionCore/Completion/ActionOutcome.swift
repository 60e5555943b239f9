import struct Foundation.Data

/// The result of performing an action: its output or an ``ActionError``, plus whether it closes
/// the feature's action stack.
public enum ActionOutcome<Output: Sendable>: Sendable {
    /// The action succeeded with `output`.
    case success(Output, closeActionStack: Bool = false)
    /// The action failed with `error`.
    case failure(ActionError, closeActionStack: Bool = false)

    /// Whether this outcome closes the action stack of the action's feature (and its sub-stacks).
    public var closeActionStack: Bool {
        switch self {
        case .success(_, let close), .failure(_, let close):
            return close
        }
    }

    /// The output, when the action succeeded.
    public var output: Output? {
        if case .success(let output, _) = self { return output }
        return nil
    }

    /// The error, when the action failed.
    public var error: ActionError? {
        if case .failure(let error, _) = self { return error }
        return nil
    }

    /// The outcome as a `Result`, dropping `closeActionStack`.
    public var result: Result<Output, ActionError> {
        switch self {
        case .success(let output, _): return .success(output)
        case .failure(let error, _): return .failure(error)
        }
    }

    /// The output-free summary recorded in action stacks and given to observers.
    public var summary: ActionOutcomeSummary {
        switch self {
        case .success(_, let close):
            return ActionOutcomeSummary(status: .success, closeActionStack: close)
        case .failure(let error, let close):
            return ActionOutcomeSummary(status: .failure, errorCode: error.code, closeActionStack: close)
        }
    }

    /// Transforms a successful output, keeping failures and `closeActionStack` as they are.
    @inlinable
    public func map<NewOutput: Sendable>(_ transform: (Output) throws(ActionError) -> NewOutput) -> ActionOutcome<NewOutput> {
        switch self {
        case .success(let output, let close):
            do {
                return .success(try transform(output), closeActionStack: close)
            } catch {
                return .failure(error, closeActionStack: close)
            }
        case .failure(let error, let close):
            return .failure(error, closeActionStack: close)
        }
    }
}

/// An outcome whose output is the action's JSON-encoded output, as produced by
/// ``ActionSession/perform(named:jsonInput:deadline:completionQueue:completion:)``.
public typealias ErasedActionOutcome = ActionOutcome<Data>

/// An outcome whose output is the action's JSON-encoded output as bytes, as
/// ``ActionSession/performForwarding(named:jsonInput:deadline:cancellation:forward:)`` gives it
/// to a host that sends it on (no `Data` made and copied out again for each outcome).
public typealias JSONBytesOutcome = ActionOutcome<[UInt8]>

extension ActionOutcome: Equatable where Output: Equatable {}

extension ActionOutcome: Hashable where Output: Hashable {}
