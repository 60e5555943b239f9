import ActionCore
import ExampleFeatures
import Foundation
import Testing

@Suite("Performing by name with JSON")
struct ErasedPerformTests {
    let session = ActionSession(name: "json", catalog: ExampleApp.catalog)

    @Test("A known action with valid input succeeds with JSON output bytes")
    func successBytes() async throws {
        let outcome = await session.perform(named: "Echo.say", jsonInput: Data(#"{"text":"hi"}"#.utf8))
        let output = try #require(outcome.output)
        #expect(String(decoding: output, as: UTF8.self) == #"{"text":"hi"}"#)
    }

    @Test("Input given as bytes, delivered on the chosen completion queue")
    func bytesInputAndCompletionQueue() async {
        let delivered = Recorder<String>()
        session.perform(named: "Math.fibonacci", jsonInput: Array(#"{"n":10}"#.utf8), completionQueue: TestQueues.completion.queue) { outcome in
            let json = outcome.output.map { String(decoding: $0, as: UTF8.self) } ?? "failed"
            delivered.record("\(json) on \(TaggedQueue.currentTag ?? "nil")")
        }
        #expect(await delivered.waitForValues() == [#"{"value":55} on completion"#])
    }

    @Test("An unknown action fails with unknownAction")
    func unknownAction() async {
        let outcome = await session.perform(named: "Echo.shout", jsonInput: Data("{}".utf8))
        #expect(outcome.error?.code == .unknownAction)
        #expect(outcome.error?.message.contains("Echo.shout") == true)
    }

    @Test("Undecodable input fails with invalidInput carrying the decoder's error")
    func invalidInput() async throws {
        let input = Data(#"{"txt":"hi"}"#.utf8)
        let outcome = await session.perform(named: "Echo.say", jsonInput: input)
        let error = try #require(outcome.error)
        #expect(error.code == .invalidInput)
        let decoderError: any Error = try #require(throws: DecodingError.self) {
            try JSONDecoder().decode(SayAction.Message.self, from: input)
        }
        #expect(error.message.contains(String(describing: decoderError)))
    }

    @Test("Malformed JSON fails with invalidInput")
    func malformedJSON() async {
        let outcome = await session.perform(named: "Math.fibonacci", jsonInput: Data("not json".utf8))
        #expect(outcome.error?.code == .invalidInput)
    }

    @Test("Empty input is read as {} for actions without input")
    func emptyInputForNoInput() async throws {
        let outcome = await session.perform(named: "Sequence.next", jsonInput: Data())
        let output = try #require(outcome.output)
        #expect(String(decoding: output, as: UTF8.self) == #"{"n":1}"#)
    }

    @Test("A failure keeps its code and message; deadlines apply")
    func failuresAndDeadlines() async {
        let failed = await session.perform(named: "Fault.fail", jsonInput: Data(#"{"message":"nope"}"#.utf8))
        #expect(failed.error == ActionError(code: .actionFailed, message: "nope"))
        let hung = await session.perform(named: "Fault.hang", jsonInput: Data("{}".utf8), deadline: .now + .milliseconds(30))
        #expect(hung.error?.code == .timedOut)
    }

    @Test("closeActionStack survives the erased path")
    func closeActionStackIsKept() async {
        _ = await session.perform(named: "Documents.open", jsonInput: Data(#"{"name":"a"}"#.utf8))
        let closed = await session.perform(named: "Documents.close", jsonInput: Data(#"{"name":"a"}"#.utf8))
        #expect(closed.closeActionStack)
        #expect(closed.output != nil)
    }

    @Test("Error codes keep their wire names")
    func errorCodeWireNames() throws {
        let codes: [ActionError.Code] = [.actionFailed, .invalidInput, .invalidOutput, .unknownAction, .timedOut, .cancelled, .completedTwice, .internalError]
        #expect(codes.map(\.rawValue) == ["actionFailed", "invalidInput", "invalidOutput", "unknownAction", "timedOut", "cancelled", "completedTwice", "internalError"])
        let encoded = try JSONEncoder().encode(ActionError(code: .timedOut, message: "late"))
        let decoded = try JSONDecoder().decode(ActionError.self, from: encoded)
        #expect(decoded == ActionError(code: .timedOut, message: "late"))
        #expect(String(decoding: encoded, as: UTF8.self).contains(#""code":"timedOut""#))
    }
}
