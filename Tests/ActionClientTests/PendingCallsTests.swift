import ActionBusTestSupport
@testable import ActionClient
import ActionWire
import Testing

@Suite("The client's pending calls")
struct PendingCallsTests {
    private static let client = "AbCdEfGhIj"

    private static func call(_ requestID: String) -> PendingCall {
        PendingCall(request: WireRequest(requestID: requestID, action: "Echo.say", input: []), timeout: .seconds(1),
                    deadline: .now + .seconds(1), deliver: { _ in })
    }

    @Test("an own id maps to the sequence it was made from, and only its one spelling does")
    func ownIDsMapToTheirSequence() {
        let calls = PendingCalls(clientID: Self.client)
        for sequence: UInt64 in [0, 1, 63, 64, 4_095, 16_777_215, 16_777_216, 1 << 40, .max] {
            #expect(calls.sequence(of: CompactRequestID.requestID(clientID: Self.client, sequence: sequence)) == sequence)
        }
        // A leading zero digit, another client's prefix, no digits, a character outside the
        // alphabet, twelve digits, or more than 64 bits: kept by text.
        for other in ["AbCdEfGhIj:AB", "AbCdEfGhIk:B", "AbCdEfGhIj:", "AbCdEfGhIj:B.C", "AbCdEfGhIj:BAAAAAAAAAAA",
                      "AbCdEfGhIj:Q__________", "AbCdEfGhIj:___________", "order-17", "AbCdEfGhIj"] {
            #expect(calls.sequence(of: other) == nil, "\(other)")
        }
        // Eleven digits within 64 bits still map (15, then ten full digits).
        #expect(calls.sequence(of: "AbCdEfGhIj:P__________") == .max)
        #expect(calls.sequence(of: "AbCdEfGhIj:BAAAAAAAAAA") == 1 << 60)
    }

    @Test("ids that differ only in a leading zero digit are two calls")
    func aLeadingZeroDigitIsAnotherID() {
        var calls = PendingCalls(clientID: Self.client)
        let own = Self.call("AbCdEfGhIj:B"), padded = Self.call("AbCdEfGhIj:AB")
        #expect(calls.insert(own, for: "AbCdEfGhIj:B") == nil)
        #expect(calls.insert(padded, for: "AbCdEfGhIj:AB") == nil)
        #expect(calls.count == 2)
        #expect(calls["AbCdEfGhIj:AB"] === padded)
        #expect(calls.remove("AbCdEfGhIj:B") === own)
        #expect(calls["AbCdEfGhIj:AB"] === padded)
        #expect(calls["AbCdEfGhIj:B"] == nil)
    }

    @Test("a second call under a pending id is refused, and the first stays")
    func aPendingIDIsNotTakenTwice() {
        var calls = PendingCalls(clientID: Self.client)
        for requestID in ["AbCdEfGhIj:C", "order-17"] {
            let first = Self.call(requestID), second = Self.call(requestID)
            #expect(calls.insert(first, for: requestID) == nil)
            #expect(calls.insert(second, for: requestID) === first)
            #expect(calls[requestID] === first)
        }
        #expect(calls.count == 2)
    }

    @Test("inserts and removals of own and other ids, through growth and shrinking, agree with a dictionary", .seeded)
    func agreesWithADictionary() {
        var calls = PendingCalls(clientID: Self.client)
        var model: [String: PendingCall] = [:]
        var random = SeededRandom()
        var next: UInt64 = 1
        var live: [String] = []
        for step in 0..<60_000 {
            let growing = step < 30_000 ? random.next() % 4 != 0 : random.next() % 4 == 0
            if growing || live.isEmpty {
                // Mostly consecutive own ids, some far ahead (a long-lived call's neighbours
                // wrap round onto it), some idempotency keys.
                let requestID: String
                switch random.next() % 10 {
                case 0: requestID = "key-\(random.next() % 100_000)"
                case 1: requestID = CompactRequestID.requestID(clientID: Self.client, sequence: random.next() % 1_000_000)
                default:
                    requestID = CompactRequestID.requestID(clientID: Self.client, sequence: next)
                    next += 1
                }
                let call = Self.call(requestID)
                let refused = calls.insert(call, for: requestID)
                #expect(refused === model[requestID])
                if refused == nil {
                    model[requestID] = call
                    live.append(requestID)
                }
            } else {
                let index = Int(random.next() % UInt64(live.count))
                live.swapAt(index, live.count - 1)
                let requestID = live.removeLast()
                #expect(calls.remove(requestID) === model.removeValue(forKey: requestID))
                #expect(calls.remove(requestID) == nil)
            }
            if step % 1_000 == 0 {
                #expect(calls.count == model.count)
                for (requestID, call) in model { #expect(calls[requestID] === call) }
            }
        }
        #expect(calls.count == model.count)
        #expect(Set(calls.all.map(ObjectIdentifier.init)) == Set(model.values.map(ObjectIdentifier.init)))
    }
}

/// xorshift64*: seeded, so a failure repeats.
