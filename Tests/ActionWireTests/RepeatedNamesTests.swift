import Testing
@testable import ActionWire

/// A message's records decoded in turn with one ``RepeatedNames``: the same requests and
/// outcomes as decoded alone, and a repeated name is taken only once it passed its checks.
@Suite("Repeated names")
struct RepeatedNamesTests {
    @Test func requestsDecodedInTurnAreThoseDecodedAloneAndChangedNamesAreReadAnew() throws {
        let requests = [
            WireRequest(requestID: "r1", action: "Echo.say", session: "s1", input: Array("a".utf8)),
            WireRequest(requestID: "r2", action: "Echo.say", session: "s1", input: Array("b".utf8)),
            WireRequest(requestID: "r3", action: "Echo.shout", session: "", input: []),
            WireRequest(requestID: "r4", action: "Echo.shout", session: "", input: []),
            WireRequest(requestID: "r5", action: "Echo.say", session: "a-much-longer-session-name", input: Array("c".utf8)),
        ]
        var names = RepeatedNames()
        for request in requests {
            let (head, input) = try WireRequest.unpackLeavingInput(request.packed[...], command: .perform, limits: WireLimits(), names: &names)
            var whole = head
            whole.input = Array(input)
            #expect(whole == request)
        }
    }

    @Test func aNameThatFailedItsCheckIsNotRememberedSoItsRepeatIsRefusedToo() {
        // "Echo" is a valid name but not an action name (no dot): both records are refused.
        let noDot = WireRequest(requestID: "r1", action: "Echo", input: []).packed
        var names = RepeatedNames()
        for _ in 0..<2 {
            #expect(throws: WireError.self) {
                try WireRequest.unpackLeavingInput(noDot[...], command: .perform, limits: WireLimits(), names: &names)
            }
        }
        // A valid action remembered, then a record whose action differs by one byte: checked.
        let valid = WireRequest(requestID: "r2", action: "Echo.say", input: []).packed
        let invalid = WireRequest(requestID: "r3", action: "Echo\u{1}say", input: []).packed
        #expect(throws: Never.self) { try WireRequest.unpackLeavingInput(valid[...], command: .perform, limits: WireLimits(), names: &names) }
        #expect(throws: WireError.self) {
            try WireRequest.unpackLeavingInput(invalid[...], command: .perform, limits: WireLimits(), names: &names)
        }
    }

    @Test func outcomesDecodedOrForwardedInTurnAreThoseDecodedAlone() throws {
        let outcomes = (0..<4).map { index in
            WireOutcome(requestID: "r\(index)", action: index < 2 ? "Echo.say" : "Math.add", session: index == 3 ? "s" : "",
                        worker: "w1", closeActionStack: false,
                        result: .success(contentType: WireRequest.json, output: Array("\(index)".utf8)))
        }
        var forwardingNames = RepeatedNames(), decodingNames = RepeatedNames()
        for outcome in outcomes {
            let record = outcome.packed
            let alone = try WireOutcome.unpack(record[...], command: .outcome, limits: WireLimits())
            let forwarded = try WireOutcome.unpackForwarding(record[...], command: .result, limits: WireLimits(), names: &forwardingNames)
            let decoded = try WireOutcome.unpack(record[...], command: .outcome, limits: WireLimits(), names: &decodingNames)
            #expect(forwarded == alone && decoded == alone && alone == outcome)
        }
    }
}
