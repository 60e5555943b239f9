import ActionCore
import ActionWire
import Foundation

// Results: outcomes written into RESULTs at the end of a turn, nested performs reported with
// them, and the RESULTs kept to be sent again (RESENT) to the next coordinator that welcomes
// this worker, until the coordinator says they are durable.
extension WorkerDriver {
    /// Sends the outcomes finished this turn (those a full RESULT did not take already).
    func sendFinishedOutcomes() {
        guard !resultWriter.isEmpty else { return }
        sendResults(resultWriter.message)
        resultWriter.removeAll()
    }

    /// Sends a RESULT of `message`'s records: after this turn's BEGANs, which must reach the
    /// coordinator before the outcomes of the requests they announce. Called by the writer
    /// when a RESULT is full: it must not touch the writer.
    func sendResults(_ message: PackedFrames) {
        sendBegunRequests()
        // Kept even when it could not be sent: the next coordinator gets it.
        let wasSent = send(frames: message)
        recentResults.keep(message, sentAt: .now, registration: resultRegistration ?? readiesSent, mark: heartbeatMark, wasSent: wasSent)
        resultRegistration = nil
    }

    /// Sends the results of ``recentResults`` again, to the coordinator that just welcomed this
    /// worker: it may be one that never got them. One that already has their answers drops them.
    /// The newest go first (they are the ones a lost coordinator may not have recorded), and an
    /// empty RESENT ends them: the coordinator holds what it took back until then.
    func resendRecentResults() {
        let limit = WirePacking.maxFrameBytes(maxMessageBytes: maxResultBytes)
        var outcomes = 0
        let messages = recentResults.resendable(at: .now)
        for message in messages.reversed() where Int64(message.bytes.count) <= limit {
            guard send(frames: message) else { break }
            outcomes += message.count - 1
        }
        send(.resent([]))
        statistics.resultsResent += outcomes
        if outcomes > 0 { logger.info("results sent again", metadata: ["worker.resent": "\(outcomes)", "worker.resentMessages": "\(messages.count)"]) }
    }

    func finish(_ request: WireRequest, _ outcome: JSONBytesOutcome, now: ContinuousClock.Instant) {
        let finished = running.removeValue(forKey: request.requestID)
        let hosted = finished?.hosted
        if let hosted {
            hosted.running -= 1
            hosted.lastUsed = now
        }
        let result: WireOutcome.Result
        switch outcome {
        case .success(let output, _) where output.count > maxResultBytes:
            // Sent, it would be refused by the coordinator (and past libzmq's limit, cost the
            // connection and everything on it): say why instead.
            statistics.resultsTooLarge += 1
            result = .failure(
                code: BusErrorCode.resultTooLarge,
                message: "the output of \(request.action) has \(output.count) bytes; the coordinator's limit is \(maxResultBytes)"
            )
        case .success(let output, _):
            result = .success(contentType: WireRequest.json, output: output)
        case .failure(let error, _):
            result = wireFailure(code: error.code.rawValue, message: error.message)
        }
        statistics.completed += 1
        resultWriter.append(
            requestID: request.requestID, action: request.action, session: request.session,
            worker: configuration.name, closeActionStack: outcome.closeActionStack,
            userInitiated: hosted?.session.userInitiated ?? request.userInitiated, result: result
        ) { sendResults($0) }
        // One not running here (it cannot be told where it came from) counts as the oldest.
        noteResultRegistration(finished?.registration ?? 0)
    }

    /// The outcome just written answers a request that came under `registration`. After the
    /// write: a full RESULT it sent first did not hold it.
    func noteResultRegistration(_ registration: UInt64) {
        resultRegistration = min(resultRegistration ?? registration, registration)
    }

    /// A failure as a RESULT may carry it. Its message is text of the action's making: kept
    /// within the limit. Error codes are open-ended: one the wire's name rule refuses would cost
    /// the RESULT it travels in (and the outcomes beside it), so it is named in the message instead.
    func wireFailure(code: String, message: String) -> WireOutcome.Result {
        var message = message.utf8.count <= maxResultBytes / 2
            ? message : String(decoding: message.utf8.prefix(maxResultBytes / 2), as: UTF8.self) + "…"
        var code = code
        if (try? WireName.check(code, field: "error code")) == nil {
            message = "(error code \(code.debugDescription.prefix(300)) is not a valid name) " + message
            code = BusErrorCode.actionFailed
        }
        return .failure(code: code, message: message)
    }

    /// Sends a nested perform with the next RESULT: it returns no credit and answers no request.
    func reportNested(_ perform: UnrequestedPerform, session: String) {
        lastNestedNumber += 1
        statistics.nestedPerforms += 1
        let record = perform.record
        let result: WireOutcome.Result
        if let code = record.outcome.errorCode {
            result = wireFailure(code: code.rawValue, message: perform.errorMessage ?? "")
        } else {
            // The output went to the action that performed it; the stream gets the fact.
            result = .success(contentType: WireRequest.json, output: Self.nestedOutput)
        }
        resultWriter.append(
            requestID: String(decoding: routingID, as: UTF8.self) + "/\(lastNestedNumber)", action: record.actionName,
            session: session, worker: configuration.name, closeActionStack: record.outcome.closeActionStack,
            nested: true, userInitiated: record.userInitiated, result: result
        ) { sendResults($0) }
        noteResultRegistration(readiesSent)
    }

    /// What a nested success carries as its output.
    static let nestedOutput = Array("null".utf8)
}
