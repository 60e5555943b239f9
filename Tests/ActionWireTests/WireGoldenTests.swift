import Foundation
import Testing
@testable import ActionWire

/// Golden byte vectors: the exact frames of every command, as docs/PROTOCOL.md specifies them.
@Suite("Wire golden vectors")
struct WireGoldenTests {
    static func h(_ command: UInt8) -> [UInt8] { [0x41, 0x42, 0x55, 0x53, 0x05, command] }
    static func t(_ text: String) -> [UInt8] { Array(text.utf8) }
    /// A packed record: each field as a 4-byte big-endian length and its bytes.
    static func packed(_ fields: [[UInt8]]) -> [UInt8] {
        fields.flatMap { field -> [UInt8] in
            let length = withUnsafeBytes(of: UInt32(field.count).bigEndian) { Array($0) }
            return length + field
        }
    }

    static let request = WireRequest(
        requestID: "c1:7", action: "Echo.say", session: "doc-1",
        timeoutMilliseconds: 30_000, input: t(#"{"text":"hi"}"#)
    )
    static let requestFrames: [[UInt8]] = [
        t("c1:7"), t("Echo.say"), t("doc-1"), [0x00, 0x00, 0x75, 0x30], t("application/json"), t(#"{"text":"hi"}"#),
    ]
    static let success = WireOutcome(
        requestID: "c1:7", action: "Documents.close", session: "doc-1", worker: "w1",
        closeActionStack: true, result: .success(contentType: "application/json", output: t("{}"))
    )
    static let successFrames: [[UInt8]] = [
        t("c1:7"), t("Documents.close"), t("doc-1"), t("w1"), [0x00, 0x01], t("application/json"), t("{}"),
    ]
    static let failure = WireOutcome(
        requestID: "c1:8", action: "Fault.fail", session: "", worker: "",
        closeActionStack: false, result: .failure(code: "actionFailed", message: "boom")
    )
    static let failureFrames: [[UInt8]] = [
        t("c1:8"), t("Fault.fail"), [], [], [0x01, 0x00], t("actionFailed"), t("boom"),
    ]

    func encoded(_ body: (inout WireFrameList) -> Void) -> [[UInt8]] {
        var list = WireFrameList()
        body(&list)
        return list.frames
    }

    @Test func perform() throws {
        let frames = [Self.h(0x01), Self.packed(Self.requestFrames)]
        #expect(frames[1].prefix(12) == [0, 0, 0, 4, 0x63, 0x31, 0x3A, 0x37, 0, 0, 0, 8], "c1:7, then Echo.say's length")
        #expect(encoded { ClientMessage.perform(Self.request).encode(into: &$0) } == frames)
        #expect(try ClientMessage.decode(WireFrameList(frames)) == .perform(Self.request))
    }

    /// ABP/4: a request that is not user-initiated carries a seventh field, its flags; one that
    /// is carries none (the same bytes as before). An outcome says so, and whether it was nested,
    /// in its status flags.
    @Test func userInitiatedAndNestedFlags() throws {
        var background = Self.request
        background.userInitiated = false
        let frames = [Self.h(0x01), Self.packed(Self.requestFrames + [[0x01]])]
        #expect(encoded { ClientMessage.perform(background).encode(into: &$0) } == frames)
        #expect(try ClientMessage.decode(WireFrameList(frames)) == .perform(background))
        #expect(try ClientMessage.decode(WireFrameList([Self.h(0x01), Self.packed(Self.requestFrames)])) == .perform(Self.request))

        var nested = Self.success
        nested.nested = true
        nested.userInitiated = false
        var nestedFrames = Self.successFrames
        nestedFrames[4] = [0x00, 0x01 | 0x02 | 0x04]
        let result = [Self.h(0x22), Self.packed(nestedFrames)]
        #expect(encoded { WorkerMessage.result(nested).encode(into: &$0) } == result)
        #expect(try WorkerMessage.decode(WireFrameList(result)) == .result(nested))
        nestedFrames[4] = [0x00, 0x08]
        #expect(throws: WireError.self) { try WorkerMessage.decode(WireFrameList([Self.h(0x22), Self.packed(nestedFrames)])) }

        // RESENT: a RESULT's records under header 0x28, made from the RESULT as it was sent.
        let resent = [Self.h(0x28), Self.packed(Self.successFrames), Self.packed(Self.successFrames)]
        #expect(encoded { WorkerMessage.resent([Self.success, Self.success]).encode(into: &$0) } == resent)
        #expect(try WorkerMessage.decode(WireFrameList(resent)) == .resent([Self.success, Self.success]))
        var sent = PackedFrames()
        WorkerMessage.resultBatch([Self.success, Self.success]).encode(into: &sent)
        let remade = WorkerMessage.resent(fromResult: sent)
        #expect((0..<remade.count).map { Array(remade.frame(at: $0)) } == resent)
        // An empty RESENT ends them.
        #expect(encoded { WorkerMessage.resent([]).encode(into: &$0) } == [Self.h(0x28)])
        #expect(try WorkerMessage.decode(WireFrameList([Self.h(0x28)])) == .resent([]))
    }

    @Test func featureSwitches() throws {
        let features = ClientMessage.features(queryID: "q4", changes: ["Labs": .on, "Echo": .off, "Math": .cleared])
        let frames = [Self.h(0x08), Self.t("q4"), Self.t("Echo"), [0], Self.t("Labs"), [1], Self.t("Math"), [2]]
        #expect(encoded { features.encode(into: &$0) } == frames, "name order, whatever the dictionary's")
        #expect(try ClientMessage.decode(WireFrameList(frames)) == features)
        #expect(try ClientMessage.decode(WireFrameList([Self.h(0x08), Self.t("q5")])) == .features(queryID: "q5", changes: [:]))
        let reply = ClientReply.features(queryID: "q4", json: Self.t("{}"))
        #expect(encoded { reply.encode(into: &$0) } == [Self.h(0x17), Self.t("q4"), Self.t("{}")])
        #expect(try ClientReply.decode(WireFrameList([Self.h(0x17), Self.t("q4"), Self.t("{}")])) == reply)
        let switches = WorkerInstruction.switches(["Echo": .off, "Labs": .on])
        #expect(encoded { switches.encode(into: &$0) } == [Self.h(0x37), Self.t("Echo"), [0], Self.t("Labs"), [1]])
        #expect(try WorkerInstruction.decode(WireFrameList([Self.h(0x37), Self.t("Echo"), [0], Self.t("Labs"), [1]])) == switches)
        #expect(try WorkerInstruction.decode(WireFrameList([Self.h(0x37)])) == .switches([:]))

        func clientError(_ frames: [[UInt8]]) -> WireError.Code? {
            do { _ = try ClientMessage.decode(WireFrameList(frames)); return nil } catch { return error.code }
        }
        #expect(clientError([Self.h(0x08), Self.t("q"), Self.t("Echo")]) == .truncated, "a feature without its state")
        #expect(clientError([Self.h(0x08), Self.t("q"), Self.t("Echo"), [3]]) == .invalidField)
        #expect(clientError([Self.h(0x08), Self.t("q"), Self.t("Echo"), [0, 0]]) != nil)
        #expect(clientError([Self.h(0x08), Self.t("q"), Self.t("Echo.say"), [0]]) == .invalidField, "an action, not a feature")
        #expect(clientError([Self.h(0x08), Self.t("q"), Self.t("Echo"), [0], Self.t("Echo"), [1]]) == .invalidField, "twice")
        #expect(throws: WireError.self, "SWITCHES carries on and off only") {
            try WorkerInstruction.decode(WireFrameList([Self.h(0x37), Self.t("Echo"), [2]]))
        }
    }

    @Test func beganEvents() throws {
        let event = BeganEvent(requestID: "c1:7", action: "Echo.say", session: "s1")
        let record = Self.packed([Self.t("c1:7"), Self.t("Echo.say"), Self.t("s1"), []])
        #expect(encoded { WorkerMessage.began([event]).encode(into: &$0) } == [Self.h(0x26), record])
        #expect(try WorkerMessage.decode(WireFrameList([Self.h(0x26), record])) == .began([event]))
        for (flag, began) in [(UInt8(0), false), (1, true)] {
            #expect(encoded { WorkerInstruction.reporting(began: began).encode(into: &$0) } == [Self.h(0x38), [flag]])
            #expect(try WorkerInstruction.decode(WireFrameList([Self.h(0x38), [flag]])) == .reporting(began: began))
        }
        #expect(throws: WireError.self) { try WorkerInstruction.decode(WireFrameList([Self.h(0x38), [2]])) }
        // A marked HEARTBEAT, and the coordinator's answer naming the mark: a u64 after the header.
        let mark: [UInt8] = [0, 0, 0, 0, 0, 0, 1, 2]
        #expect(encoded { WorkerMessage.markedHeartbeat(mark: 0x0102).encode(into: &$0) } == [Self.h(0x23), mark])
        #expect(try WorkerMessage.decode(WireFrameList([Self.h(0x23), mark])) == .markedHeartbeat(mark: 0x0102))
        #expect(try WorkerMessage.decode(WireFrameList([Self.h(0x23)])) == .heartbeat)
        #expect(encoded { WorkerInstruction.resultsTaken(mark: 0x0102).encode(into: &$0) } == [Self.h(0x32), mark])
        #expect(try WorkerInstruction.decode(WireFrameList([Self.h(0x32), mark])) == .resultsTaken(mark: 0x0102))
        #expect(throws: WireError.self) { try WorkerInstruction.decode(WireFrameList([Self.h(0x32), [1, 2]])) }
        // A group member that does not lead: NOT-LEADER is a header, then the leader's endpoint
        // when the member knows it, to workers as to clients.
        #expect(encoded { WorkerInstruction.notLeader(leader: nil).encode(into: &$0) } == [Self.h(0x39)])
        #expect(try WorkerInstruction.decode(WireFrameList([Self.h(0x39)])) == .notLeader(leader: nil))
        let named = WorkerInstruction.notLeader(leader: "tcp://10.0.0.2:5556")
        #expect(encoded { named.encode(into: &$0) } == [Self.h(0x39), Self.t("tcp://10.0.0.2:5556")])
        #expect(try WorkerInstruction.decode(WireFrameList([Self.h(0x39), Self.t("tcp://10.0.0.2:5556")])) == named)
        #expect(throws: WireError.self) { try WorkerInstruction.decode(WireFrameList([Self.h(0x39), [0]])) }
        #expect(throws: WireError.self) { try WorkerInstruction.decode(WireFrameList([Self.h(0x39), Self.t("tcp://a:1"), Self.t("x")])) }
        let catalog = WorkerMessage.catalog(json: Self.t(#"{"actions":[],"features":[]}"#))
        #expect(encoded { catalog.encode(into: &$0) } == [Self.h(0x27), Self.t(#"{"actions":[],"features":[]}"#)])
        #expect(try WorkerMessage.decode(WireFrameList([Self.h(0x27), Self.t("{}")])) == .catalog(json: Self.t("{}")))
        var published = event
        published.worker = "w1"
        let topic = OutcomeTopic.beganTopics(for: published).byAction
        #expect(topic == Self.t("B\u{1F}Echo\u{1F}say\u{1F}s1\u{1F}"))
        #expect(OutcomeTopic.beganTopics(for: published).bySession == Self.t("b\u{1F}s1\u{1F}Echo\u{1F}say\u{1F}"))
        let frames = [topic, Self.h(0x43), Self.packed([Self.t("c1:7"), Self.t("Echo.say"), Self.t("s1"), Self.t("w1")])]
        #expect(encoded { StreamMessage.began(topic: topic, events: [published]).encode(into: &$0) } == frames)
        #expect(try StreamMessage.decode(WireFrameList(frames)) == .began(topic: topic, events: [published]))
        #expect(OutcomeTopic.matchesBegan(OutcomeTopic.beganPrefix(session: "s1")))
        #expect(!OutcomeTopic.matchesBegan(OutcomeTopic.prefix(session: "s1")))
    }

    @Test func recordsTravelSeveralToAMessage() throws {
        var second = Self.request
        second.requestID = "c1:8"
        second.session = ""
        let secondFields = [Self.t("c1:8"), Self.t("Echo.say"), [], [0x00, 0x00, 0x75, 0x30], Self.t("application/json"), Self.t(#"{"text":"hi"}"#)]
        let performs = [Self.h(0x01), Self.packed(Self.requestFrames), Self.packed(secondFields)]
        #expect(encoded { ClientMessage.performBatch([Self.request, second]).encode(into: &$0) } == performs)
        #expect(try ClientMessage.decode(WireFrameList(performs)) == .performBatch([Self.request, second]))
        let requests = [Self.h(0x31), Self.packed(Self.requestFrames), Self.packed(secondFields)]
        #expect(encoded { WorkerInstruction.requestBatch([Self.request, second]).encode(into: &$0) } == requests)
        #expect(try WorkerInstruction.decode(WireFrameList(requests)) == .requestBatch([Self.request, second]))
        let results = [Self.h(0x22), Self.packed(Self.successFrames), Self.packed(Self.failureFrames)]
        #expect(encoded { WorkerMessage.resultBatch([Self.success, Self.failure]).encode(into: &$0) } == results)
        #expect(try WorkerMessage.decode(WireFrameList(results)) == .resultBatch([Self.success, Self.failure]))
        let outcomes = [Self.h(0x12), Self.packed(Self.failureFrames), Self.packed(Self.successFrames)]
        #expect(encoded { ClientReply.outcomeBatch([Self.failure, Self.success]).encode(into: &$0) } == outcomes)
        #expect(try ClientReply.decode(WireFrameList(outcomes)) == .outcomeBatch([Self.failure, Self.success]))
    }

    @Test func timeoutsRoundUpAndNeverMeanTheDefault() {
        #expect(WireRequest.timeoutMilliseconds(.milliseconds(30_000)) == 30_000)
        #expect(WireRequest.timeoutMilliseconds(.microseconds(1_500)) == 2)
        #expect(WireRequest.timeoutMilliseconds(.zero) == 1)
        #expect(WireRequest.timeoutMilliseconds(.seconds(-3)) == 1)
        #expect(WireRequest.timeoutMilliseconds(.seconds(10_000_000)) == UInt32.max)
        #expect(WireHeader.bytes(.outcome) == [0x41, 0x42, 0x55, 0x53, 0x05, 0x12])
    }

    @Test func timeoutsInNanosecondsRoundAsDurationsDo() {
        let nanoseconds: [Int64] = [
            .min, -3_000_000_000, -1, 0, 1, 999_999, 1_000_000, 1_000_001, 1_500_000, 30_000_000_000,
            Int64(UInt32.max) * 1_000_000, Int64(UInt32.max) * 1_000_000 + 1, .max,
        ]
        for value in nanoseconds {
            #expect(WireRequest.timeoutMilliseconds(nanoseconds: value) == WireRequest.timeoutMilliseconds(.nanoseconds(value)), "\(value) ns")
        }
    }

    @Test func outcomeJSONForFailuresAndBareErrors() {
        #expect(String(decoding: OutcomeJSON.encode(Self.failure, sequence: 3), as: UTF8.self) == #"""
            {"request":"c1:8","action":"Fault.fail","session":"","outcome":"failure","error":{"code":"actionFailed","message":"boom"},"worker":"","closeActionStack":false,"sequence":3}
            """#)
        #expect(String(decoding: OutcomeJSON.encodeError(code: "malformedRequest", message: "bad"), as: UTF8.self)
                == #"{"outcome":"failure","error":{"code":"malformedRequest","message":"bad"}}"#)
    }

    /// Every field and flag, and every kind of escape: the line Majordomo clients and stream
    /// subscribers read, byte for byte.
    @Test func outcomeJSONForSuccessesWithEscapesAndFlags() {
        let escaping = WireOutcome(
            requestID: "c1:9", action: "Echo.say", session: "a \"quoted\" \\ session", worker: "w/1",
            closeActionStack: true, nested: true, userInitiated: false,
            result: .success(contentType: WireRequest.json, output: Array(#"{"text":"hi"}"#.utf8))
        )
        #expect(OutcomeJSON.encode(escaping) == Array(#"""
            {"request":"c1:9","action":"Echo.say","session":"a \"quoted\" \\ session","outcome":"success","output":{"text":"hi"},"worker":"w/1","closeActionStack":true,"nested":true,"userInitiated":false}
            """#.utf8))
        let text = WireOutcome(
            requestID: "c1:10", action: "Echo.say", session: "", worker: "",
            closeActionStack: false, result: .success(contentType: "text/plain", output: Array("tab\there\nline\r\u{01}é\u{7F}".utf8))
        )
        #expect(OutcomeJSON.encode(text, sequence: 12_345_678_901) == Array(#"""
            {"request":"c1:10","action":"Echo.say","session":"","outcome":"success","output":"tab\there\nline\r\u0001é\#u{7F}","worker":"","closeActionStack":false,"sequence":12345678901}
            """#.utf8))
        let empty = WireOutcome(
            requestID: "c1:11", action: "Echo.say", session: "", worker: "w",
            closeActionStack: false, result: .success(contentType: WireRequest.json, output: [])
        )
        #expect(OutcomeJSON.encode(empty)
                == Array(#"{"request":"c1:11","action":"Echo.say","session":"","outcome":"success","output":"","worker":"w","closeActionStack":false}"#.utf8))
        let failure = WireOutcome(
            requestID: "c1:12", action: "Fault.fail", session: "", worker: "w",
            closeActionStack: false, result: .failure(code: "actionFailed", message: "line 1\nline \"2\"\u{1F}")
        )
        #expect(OutcomeJSON.encode(failure)
                == Array(#"{"request":"c1:12","action":"Fault.fail","session":"","outcome":"failure","error":{"code":"actionFailed","message":"line 1\nline \"2\"\u001f"},"worker":"w","closeActionStack":false}"#.utf8))
        // Output that is not UTF-8, under a content type other than JSON: repaired (U+FFFD), as a
        // JSON string must be.
        let notUTF8 = WireOutcome(
            requestID: "c1:13", action: "Echo.say", session: "", worker: "w",
            closeActionStack: false, result: .success(contentType: "application/octet-stream", output: [0x61, 0xFF, 0x62])
        )
        #expect(OutcomeJSON.encode(notUTF8)
                == Array(#"{"request":"c1:13","action":"Echo.say","session":"","outcome":"success","output":"a\#u{FFFD}b","worker":"w","closeActionStack":false}"#.utf8))
    }

    /// Any names and any message, control characters, quotes and non-ASCII included: the line
    /// parses as JSON and gives back each field as it was.
    @Test func outcomeJSONRoundTripsAnyText() throws {
        let alphabet: [Character] = ["a", "Z", "0", "\"", "\\", "/", "\n", "\r", "\t", "\u{00}", "\u{08}", "\u{0C}", "\u{1F}", "\u{7F}", "é", "😀", " "]
        // A fixed pseudo-random walk through the alphabet, so that a failure repeats.
        var step = 0
        func text(_ length: Int) -> String {
            String((0..<length).map { _ in
                step = (step &* 1_103_515_245 &+ 12_345) & 0x7FFF_FFFF
                return alphabet[(step >> 8) % alphabet.count]
            })
        }
        for round in 0..<500 {
            let outcome = WireOutcome(
                requestID: text(round % 20 + 1), action: text(round % 7), session: text(round % 5), worker: text(round % 3),
                closeActionStack: round.isMultiple(of: 2), nested: round.isMultiple(of: 3), userInitiated: !round.isMultiple(of: 5),
                result: round.isMultiple(of: 4)
                    ? .failure(code: text(3), message: text(round % 40))
                    : .success(contentType: "text/plain", output: Array(text(round % 40).utf8))
            )
            let line = OutcomeJSON.encode(outcome, sequence: UInt64(round))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            #expect(object["request"] as? String == outcome.requestID)
            #expect(object["action"] as? String == outcome.action)
            #expect(object["session"] as? String == outcome.session)
            #expect(object["worker"] as? String == outcome.worker)
            #expect(object["sequence"] as? Int == round)
            #expect(object["closeActionStack"] as? Bool == outcome.closeActionStack)
            #expect(object["nested"] as? Bool == (outcome.nested ? true : nil))
            #expect(object["userInitiated"] as? Bool == (outcome.userInitiated ? nil : false))
            switch outcome.result {
            case .success(_, let output):
                #expect(object["output"] as? String == String(decoding: output, as: UTF8.self))
            case .failure(let code, let message):
                let error = try #require(object["error"] as? [String: Any])
                #expect(error["code"] as? String == code && error["message"] as? String == message)
            }
        }
    }

    @Test func cancelStacksPing() throws {
        let cases: [(ClientMessage, [[UInt8]])] = [
            (.cancel(requestID: "c1:7"), [Self.h(0x02), Self.t("c1:7")]),
            (.stacks(queryID: "q1", session: ""), [Self.h(0x03), Self.t("q1"), []]),
            (.ping, [Self.h(0x04)]),
            (.stats(queryID: "q2"), [Self.h(0x05), Self.t("q2")]),
            (.acknowledge(requestIDs: ["c1:7"]), [Self.h(0x06), Self.t("c1:7")]),
            (.acknowledge(requestIDs: ["c1:7", "c1:9"]), [Self.h(0x06), Self.t("c1:7"), Self.t("c1:9")]),
            (.endSession(queryID: "q3", session: "doc-1"), [Self.h(0x07), Self.t("q3"), Self.t("doc-1")]),
            (.workers(queryID: "q6"), [Self.h(0x09), Self.t("q6")]),
            (.queues(queryID: "q7"), [Self.h(0x0A), Self.t("q7")]),
        ]
        for (message, frames) in cases {
            #expect(encoded { message.encode(into: &$0) } == frames)
            #expect(try ClientMessage.decode(WireFrameList(frames)) == message)
        }
    }

    @Test func clientReplies() throws {
        let cases: [(ClientReply, [[UInt8]])] = [
            (.accepted(requestID: "c1:7"), [Self.h(0x11), Self.t("c1:7")]),
            (.accepted(requestIDs: ["c1:7", "c1:8", "k"]), [Self.h(0x11), Self.t("c1:7"), Self.t("c1:8"), Self.t("k")]),
            (.outcome(Self.success), [Self.h(0x12), Self.packed(Self.successFrames)]),
            (.outcome(Self.failure), [Self.h(0x12), Self.packed(Self.failureFrames)]),
            (.stacks(queryID: "q1", json: Self.t("[]")), [Self.h(0x13), Self.t("q1"), Self.t("[]")]),
            (.pong(instance: "c0ffee", epoch: 0), [Self.h(0x14), Array("c0ffee".utf8), [0, 0, 0, 0, 0, 0, 0, 0]]),
            // A group leader's PONG names its term.
            (.pong(instance: "c0ffee", epoch: 0x0102), [Self.h(0x14), Array("c0ffee".utf8), [0, 0, 0, 0, 0, 0, 1, 2]]),
            (.stats(queryID: "q2", json: Self.t("{}")), [Self.h(0x16), Self.t("q2"), Self.t("{}")]),
            (.workers(queryID: "q6", json: Self.t("{}")), [Self.h(0x18), Self.t("q6"), Self.t("{}")]),
            (.queues(queryID: "q7", json: Self.t("{}")), [Self.h(0x19), Self.t("q7"), Self.t("{}")]),
            (.error(requestID: "", code: "unsupportedVersion", message: "v9"),
             [Self.h(0x15), [], Self.t("unsupportedVersion"), Self.t("v9")]),
            (.notLeader(leader: nil), [Self.h(0x1B)]),
            (.notLeader(leader: "tcp://10.0.0.2:5555"), [Self.h(0x1B), Self.t("tcp://10.0.0.2:5555")]),
        ]
        for (reply, frames) in cases {
            #expect(encoded { reply.encode(into: &$0) } == frames)
            #expect(try ClientReply.decode(WireFrameList(frames)) == reply)
        }
        // A PONG without an epoch (an older coordinator) is of epoch 0.
        #expect(try ClientReply.decode(WireFrameList([Self.h(0x14), Array("c0ffee".utf8)])) == .pong(instance: "c0ffee", epoch: 0))
        #expect(throws: WireError.self) { try ClientReply.decode(WireFrameList([Self.h(0x14), Array("c0ffee".utf8), [1, 2]])) }
    }

    @Test func workerMessages() throws {
        let registration = WorkerRegistration(name: "host-42", credits: 64, actions: ["Echo.say", "Clock.sleep"])
        let cases: [(WorkerMessage, [[UInt8]])] = [
            (.ready(registration),
             [Self.h(0x21), Self.t("host-42"), [0, 0, 0, 64], Self.t("Echo.say"), Self.t("Clock.sleep")]),
            // Running requests follow an empty frame.
            (.ready(WorkerRegistration(name: "host-42", credits: 64, actions: ["Echo.say"], running: ["c:1", "c:2"])),
             [Self.h(0x21), Self.t("host-42"), [0, 0, 0, 64], Self.t("Echo.say"), [], Self.t("c:1"), Self.t("c:2")]),
            (.result(Self.success), [Self.h(0x22), Self.packed(Self.successFrames)]),
            (.heartbeat, [Self.h(0x23)]),
            (.disconnect, [Self.h(0x24)]),
            (.draining, [Self.h(0x25)]),
        ]
        for (message, frames) in cases {
            #expect(encoded { message.encode(into: &$0) } == frames)
            #expect(try WorkerMessage.decode(WireFrameList(frames)) == message)
        }
    }

    @Test func workerInstructions() throws {
        let cases: [(WorkerInstruction, [[UInt8]])] = [
            (.request(Self.request), [Self.h(0x31), Self.packed(Self.requestFrames)]),
            (.heartbeat, [Self.h(0x32)]),
            (.disconnect, [Self.h(0x33)]),
            (.cancel(requestID: "c1:7"), [Self.h(0x34), Self.t("c1:7")]),
            (.welcome(WorkerTerms(maxMessageBytes: 65_536, heartbeatMilliseconds: 1_000, heartbeatLiveness: 3)),
             [Self.h(0x35), [0, 1, 0, 0], [0, 0, 0x03, 0xE8], [0, 0, 0, 3], [0, 0, 0, 0, 0, 0, 0, 0]]),
            (.welcome(WorkerTerms(maxMessageBytes: 65_536, heartbeatMilliseconds: 1_000, heartbeatLiveness: 3, epoch: 7)),
             [Self.h(0x35), [0, 1, 0, 0], [0, 0, 0x03, 0xE8], [0, 0, 0, 3], [0, 0, 0, 0, 0, 0, 0, 7]]),
            (.endSession("doc-1"), [Self.h(0x36), Self.t("doc-1")]),
        ]
        for (instruction, frames) in cases {
            #expect(encoded { instruction.encode(into: &$0) } == frames)
            #expect(try WorkerInstruction.decode(WireFrameList(frames)) == instruction)
        }
        // A WELCOME without an epoch (an older coordinator) is of epoch 0.
        #expect(try WorkerInstruction.decode(WireFrameList([Self.h(0x35), [0, 1, 0, 0], [0, 0, 0x03, 0xE8], [0, 0, 0, 3]]))
            == .welcome(WorkerTerms(maxMessageBytes: 65_536, heartbeatMilliseconds: 1_000, heartbeatLiveness: 3)))
    }

    @Test func streamMessages() throws {
        let topic = OutcomeTopic.topics(for: Self.success).byAction
        #expect(topic == Self.t("A\u{1F}Documents\u{1F}close\u{1F}doc-1\u{1F}"))
        #expect(OutcomeTopic.topics(for: Self.success).bySession == Self.t("S\u{1F}doc-1\u{1F}Documents\u{1F}close\u{1F}"))
        let sequences = OutcomeSequences([1, 2, 3, 4, 5, 6])
        let sequenceBytes: [UInt8] = [1, 2, 3, 4, 5, 6].flatMap { [0, 0, 0, 0, 0, 0, 0, $0] }
        let event = StreamMessage.event(topic: topic, sequences: sequences, outcome: Self.success)
        let frames = [topic, Self.h(0x41), Self.packed([sequenceBytes] + Self.successFrames)]
        #expect(encoded { event.encode(into: &$0) } == frames)
        #expect(try StreamMessage.decode(WireFrameList(frames)) == event)
        // Several events of one topic in one EVENT, in the order they were numbered.
        let later = OutcomeSequences([2, 3, 4, 5, 6, 7])
        let laterBytes: [UInt8] = [2, 3, 4, 5, 6, 7].flatMap { [0, 0, 0, 0, 0, 0, 0, $0] }
        let batch = StreamMessage.eventBatch(topic: topic, events: [
            OutcomeEvent(sequences: sequences, outcome: Self.success), OutcomeEvent(sequences: later, outcome: Self.success),
        ])
        let batchFrames = [topic, Self.h(0x41), Self.packed([sequenceBytes] + Self.successFrames), Self.packed([laterBytes] + Self.successFrames)]
        #expect(encoded { batch.encode(into: &$0) } == batchFrames)
        #expect(try StreamMessage.decode(WireFrameList(batchFrames)) == batch)
        // Sequences of the wrong size are refused.
        let short = [topic, Self.h(0x41), Self.packed([[0, 1]] + Self.successFrames)]
        #expect(throws: WireError.self) { try StreamMessage.decode(WireFrameList(short)) }
        let subscribed = StreamMessage.subscribed(topic: Self.t("S\u{1F}doc-1\u{1F}"), instance: "c0ffee")
        let subscribedFrames = [Self.t("S\u{1F}doc-1\u{1F}"), Self.h(0x42), Self.t("c0ffee")]
        #expect(encoded { subscribed.encode(into: &$0) } == subscribedFrames)
        #expect(try StreamMessage.decode(WireFrameList(subscribedFrames)) == subscribed)
    }

    @Test func topicPrefixesMatchTheTopicsTheyFilter() {
        let (byAction, bySession) = OutcomeTopic.topics(for: Self.success)
        func matches(_ prefix: [UInt8]) -> Bool {
            byAction.starts(with: prefix) || bySession.starts(with: prefix)
        }
        #expect(matches(OutcomeTopic.prefix()))
        #expect(matches(OutcomeTopic.prefix(feature: "Documents")))
        #expect(matches(OutcomeTopic.prefix(action: "Documents.close")))
        #expect(matches(OutcomeTopic.prefix(feature: "Documents", action: "close")))
        #expect(matches(OutcomeTopic.prefix(session: "doc-1")))
        #expect(matches(OutcomeTopic.prefix(feature: "Documents", session: "doc-1")))
        #expect(matches(OutcomeTopic.prefix(action: "Documents.close", session: "doc-1")))
        #expect(!matches(OutcomeTopic.prefix(feature: "Doc")))
        #expect(!matches(OutcomeTopic.prefix(session: "doc")))
        #expect(!matches(OutcomeTopic.prefix(action: "Documents.open")))
        #expect(OutcomeTopic.scope(feature: nil, action: nil, session: "s") == .session)
        #expect(OutcomeTopic.scope(feature: nil, action: "Echo.say", session: nil) == .action)
        #expect(OutcomeTopic.scope(feature: "Echo", action: nil, session: "s") == .sessionFeature)
        #expect(OutcomeTopic.scope(feature: nil, action: nil, session: nil) == .all)
        #expect(OutcomeTopic.scope(feature: nil, action: "say", session: nil) == .all)
        #expect(OutcomeTopic.scope(feature: "Echo", action: "say", session: nil) == .action)
    }
}
