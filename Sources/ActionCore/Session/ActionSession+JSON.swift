import Dispatch
import Foundation

extension ActionSession {
    /// Performs the catalog's action named `fullName` (e.g. `Echo.say`) with JSON input, and
    /// delivers its outcome with the output JSON-encoded: the path a distributed worker uses.
    ///
    /// Failures that happen before the action runs are delivered the same way:
    /// ``ActionError/Code/unknownAction`` when the catalog has no such action, and
    /// ``ActionError/Code/invalidInput`` (message includes the decoder's error) when the input
    /// does not decode. Empty input is read as `{}`. Those early failures reach neither observers
    /// nor action stacks, and run on `completionQueue`, or on the calling thread when it is `nil`.
    ///
    /// - Parameters:
    ///   - fullName: The action's full name.
    ///   - jsonInput: The JSON-encoded input.
    ///   - deadline: When the perform fails with ``ActionError/Code/timedOut``; `nil` uses the default timeout.
    ///   - completionQueue: Where `completion` runs; `nil` runs it on the action's executor.
    ///   - cancellation: Cancels the perform when its ``ActionCancellation/cancel()`` is called.
    ///   - completion: Receives the outcome once; never if the action drops its completion and
    ///     the perform has no deadline.
    public func perform(
        named fullName: String,
        jsonInput: Data,
        deadline: ContinuousClock.Instant? = nil,
        completionQueue: DispatchQueue? = nil,
        cancellation: ActionCancellation? = nil,
        completion: @escaping @Sendable (ErasedActionOutcome) -> Void
    ) {
        perform(named: fullName, jsonInput: [UInt8](jsonInput), deadline: deadline, completionQueue: completionQueue,
                cancellation: cancellation, completion: completion)
    }

    /// Performs the action named `fullName` with JSON input given as bytes; see
    /// ``perform(named:jsonInput:deadline:completionQueue:cancellation:completion:)``.
    public func perform(
        named fullName: String,
        jsonInput: [UInt8],
        deadline: ContinuousClock.Instant? = nil,
        completionQueue: DispatchQueue? = nil,
        cancellation: ActionCancellation? = nil,
        completion: @escaping @Sendable (ErasedActionOutcome) -> Void
    ) {
        // Early failures run on the caller's queue, or inline; the action's outcome on the
        // caller's queue, or on the action's executor.
        _ = performJSON(
            named: fullName, jsonInput: jsonInput[...], deadline: deadline,
            earlyTarget: completionQueue.map { .queue($0) } ?? .immediate,
            target: completionQueue.map { .queue($0) }, cancellation: cancellation
        ) { outcome in
            completion(outcome.map { Data($0) })
        }
    }

    /// Performs the action named `fullName` with JSON input given as bytes and calls
    /// `completion` on whichever thread ends the perform: the action's executor when it
    /// completes, the deadline timer's thread when it times out, the canceller's when it is
    /// cancelled, the caller's for an early failure.
    ///
    /// For callers that only hand the outcome on, such as a worker's I/O loop: no hop to any
    /// queue is spent on it, and the output comes as the bytes the encoder wrote (no `Data`
    /// made of them). Keep `completion` short and never block in it.
    ///
    /// - Returns: What cancels this perform, as `cancellation` would (without it, a handle that
    ///   costs the perform nothing until used).
    @discardableResult
    public func performForwarding(
        named fullName: String,
        jsonInput: [UInt8],
        deadline: ContinuousClock.Instant? = nil,
        cancellation: ActionCancellation? = nil,
        forward completion: @escaping @Sendable (JSONBytesOutcome) -> Void
    ) -> ActionCancelHandle {
        performForwarding(named: fullName, jsonInput: jsonInput[...], deadline: deadline, cancellation: cancellation, forward: completion)
    }

    /// ``performForwarding(named:jsonInput:deadline:cancellation:forward:)`` with the input
    /// read where it lies (a slice of the message it came in): it is decoded before this
    /// returns and not kept, so no array is made of it.
    @discardableResult
    public func performForwarding(
        named fullName: String,
        jsonInput: ArraySlice<UInt8>,
        deadline: ContinuousClock.Instant? = nil,
        cancellation: ActionCancellation? = nil,
        forward completion: @escaping @Sendable (JSONBytesOutcome) -> Void
    ) -> ActionCancelHandle {
        performJSON(
            named: fullName, jsonInput: jsonInput, deadline: deadline, earlyTarget: .immediate, target: .forwarded,
            cancellation: cancellation, completion: completion
        )
    }

    /// `target` `nil` delivers on the action's executor.
    private func performJSON(
        named fullName: String,
        jsonInput: ArraySlice<UInt8>,
        deadline: ContinuousClock.Instant?,
        earlyTarget: CompletionTarget,
        target: CompletionTarget?,
        cancellation: ActionCancellation?,
        completion: @escaping @Sendable (JSONBytesOutcome) -> Void
    ) -> ActionCancelHandle {
        guard let action = catalog.action(named: fullName) else {
            logger.notice("Unknown action requested", metadata: ["action.name": "\(fullName)"])
            let error = ActionError(code: .unknownAction, message: "No action named '\(fullName)' in the catalog")
            earlyTarget.deliver(.failure(error), to: completion)
            return .none
        }
        return action.performJSON(self, jsonInput, deadline, target, earlyTarget, cancellation, completion)
    }

    /// Performs the action named `fullName` with JSON input and returns its outcome, output JSON-encoded.
    public func perform(
        named fullName: String,
        jsonInput: Data,
        deadline: ContinuousClock.Instant? = nil
    ) async -> ErasedActionOutcome {
        await withCheckedContinuation { continuation in
            perform(named: fullName, jsonInput: jsonInput, deadline: deadline, completionQueue: nil) { outcome in
                continuation.resume(returning: outcome)
            }
        }
    }

    /// Decodes the input for `binding`, performs it and encodes its output; `target` `nil`
    /// delivers on the action's executor.
    ///
    /// Inlinable down to the action's `perform`, as ``ActionBinding/erased`` is: specialised in
    /// the module that declares the action.
    @inlinable
    func performJSON<F: Feature, A: Action>(
        _ binding: ActionBinding<F, A>,
        jsonInput: ArraySlice<UInt8>,
        deadline: ContinuousClock.Instant?,
        target: CompletionTarget?,
        earlyTarget: CompletionTarget,
        cancellation: ActionCancellation?,
        completion: @escaping @Sendable (JSONBytesOutcome) -> Void
    ) -> ActionCancelHandle {
        let input: A.Input
        do {
            let json = jsonInput.isEmpty ? JSONCoders.emptyObject : jsonInput
            // Foundation decides whatever the fast decoder is not sure of, errors included.
            input = try FastJSONDecoder.decode(A.Input.self, from: json) ?? JSONCoders.decoder.decode(A.Input.self, from: Data(json))
        } catch {
            let failure = ActionError(code: .invalidInput, message: "Invalid input for \(binding.fullName): \(error)")
            earlyTarget.deliver(.failure(failure), to: completion)
            return .none
        }
        let target = target ?? .executor(executor(for: A.executor))
        let forward: @Sendable (ActionOutcome<A.Output>) -> Void = { outcome in
            completion(outcome.encodedAsJSON(actionName: binding.fullName))
        }
        // A single attempt without a caller's cancellation is cancelled through the perform
        // itself: no cancellation object per perform. Retries share one, made here.
        if cancellation == nil, A.retryPolicy.maxAttempts <= 1 {
            let dispatched = dispatchPerform(binding, input: input, deadline: resolvedDeadline(deadline),
                                             target: target, cancellation: nil, asyncReport: nil, completion: forward)
            return ActionCancelHandle { [dispatched] in dispatched.cancel() }
        }
        let cancellation = cancellation ?? ActionCancellation()
        _ = dispatch(binding, input: input, deadline: deadline, target: target, cancellation: cancellation, completion: forward)
        return ActionCancelHandle { [cancellation] in cancellation.cancel() }
    }
}

/// One JSON decoder and encoder for every perform: making them costs more than a small decode.
@usableFromInline
enum JSONCoders {
    /// What empty input reads as.
    @usableFromInline static let emptyObject: ArraySlice<UInt8> = Array("{}".utf8)[...]
    @usableFromInline static let decoder = JSONDecoder()
    @usableFromInline static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

extension ActionOutcome where Output: Encodable {
    /// The outcome with its output JSON-encoded (sorted keys); an unencodable output becomes
    /// an ``ActionError/Code/invalidOutput`` failure.
    @inlinable
    func encodedAsJSON(actionName: String) -> JSONBytesOutcome {
        map { output throws(ActionError) -> [UInt8] in
            do {
                // Foundation encodes whatever the fast encoder is not sure of, errors included.
                return try FastJSONEncoder.encode(output) ?? Array(JSONCoders.encoder.encode(output))
            } catch {
                throw ActionError(code: .invalidOutput, message: "Could not encode the output of \(actionName): \(error)")
            }
        }
    }
}
