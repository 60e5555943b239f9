import ActionBusTestSupport
@testable import ActionCoordinator
import ActionWire
import Testing

/// The coordinator's request table and the packed requests it holds: every id found, every
/// removal leaves the others findable (backward-shift deletion), and a packed request gives
/// back the request it was made from.
@Suite("Coordinator core: request table")
struct RequestTableTests {
    private func pending(_ id: String, session: String = "", contentType: String = WireRequest.json, input: [UInt8] = [1, 2, 3]) -> PendingRequest {
        let request = WireRequest(requestID: id, action: "Echo.say", session: session, timeoutMilliseconds: 250,
                                  contentType: contentType, input: input)
        return PendingRequest.make(request, sender: nil, order: 1, deadline: .now + .seconds(5))
    }

    @Test func aPackedRequestGivesBackTheRequestItWasMadeFrom() {
        let long = String(repeating: "x", count: 200)
        let cases = [
            WireRequest(requestID: "a", action: "Echo.say", session: "", timeoutMilliseconds: 0, input: []),
            WireRequest(requestID: "client-0123456789:42", action: "Feature.action", session: "séance",
                        timeoutMilliseconds: 1_000, contentType: "text/plain", input: Array("hello".utf8)),
            WireRequest(requestID: long, action: "F." + long, session: long, timeoutMilliseconds: .max,
                        contentType: "application/octet-stream", input: Array(repeating: 7, count: 70_000)),
            WireRequest(requestID: "b", action: "Echo.say", session: "s", timeoutMilliseconds: 5, input: [1], userInitiated: false),
        ]
        for request in cases {
            let pending = PendingRequest.make(request, sender: nil, order: 9, deadline: .now)
            #expect(pending.request == request)
            #expect(pending.hasSession == !request.session.isEmpty)
            #expect(pending.inputDigest == InputDigest.of(request.input))
            #expect(pending.lane == Lane(request))
            // Packed for a worker: the same request with the time left, readable in place.
            let packed = pending.packed(timeoutMilliseconds: 77)
            var restamped = request
            restamped.timeoutMilliseconds = 77
            #expect(packed.request == restamped)
            #expect(packed.requestID == request.requestID)
            #expect(packed.input == request.input[...])
            // Written straight into a message (what the driver does): the same record, the
            // frames around it untouched.
            var message = PackedFrames()
            message.append([0xAA])
            let outgoing = OutgoingRequest(pending, timeoutMilliseconds: 77)
            outgoing.append(to: &message)
            message.append([0xBB])
            #expect(message.count == 3 && Array(message.frame(at: 1)) == packed.record)
            #expect(Array(message.frame(at: 0)) == [0xAA] && Array(message.frame(at: 2)) == [0xBB])
            #expect(outgoing.byteCount == packed.record.count && outgoing.requestID == request.requestID)
        }
    }

    @Test func anEmptyContentTypeDoesNotFit() {
        // An empty content type would read back as JSON (its stored length 0 means JSON); the
        // wire never carries one (a name must not be empty), so only a request made in process can.
        let request = WireRequest(requestID: "r", action: "Echo.say", session: "", timeoutMilliseconds: 0, contentType: "", input: [])
        #expect(!PendingRequest.fits(request))
        var json = request
        json.contentType = WireRequest.json
        #expect(PendingRequest.fits(json))
    }

    @Test func theSmallFieldsChangeInPlace() {
        let request = pending("r1")
        request.placement = .running(on: WorkerID([1, 2]))
        request.deliveries = 3
        request.isFinished = true
        #expect(request.placement == .running(on: WorkerID([1, 2])))
        #expect(request.deliveries == 3)
        #expect(request.isFinished)
        #expect(!request.recovered)
        #expect(request.request.requestID == "r1")
    }

    @Test(.seeded) func everyIDIsFoundAndEveryRemovalLeavesTheRestFindable() {
        var table = RequestTable()
        var model: [String: PendingRequest] = [:]
        var generator = SeededRandom()
        for step in 0..<20_000 {
            let id = "id-\(Int.random(in: 0..<3_000, using: &generator))"
            if let present = model[id] {
                if step % 3 == 0 {
                    let removed = table.remove(present)
                    #expect(removed)
                } else {
                    let removed = table.remove(id)
                    #expect(removed === present)
                }
                model[id] = nil
            } else {
                let added = pending(id)
                table.insert(added)
                model[id] = added
            }
            if step % 1_000 == 0 {
                #expect(table.count == model.count)
                for (id, request) in model { #expect(table[id] === request) }
            }
        }
        #expect(table.count == model.count)
        for (id, request) in model { #expect(table[id] === request) }
        #expect(Set(table.requests.map(\.requestID)) == Set(model.keys))
        #expect(table["absent"] == nil)
    }

    @Test func removingByReferenceLeavesAnotherRequestWithTheSameID() {
        var table = RequestTable()
        let first = pending("same")
        let second = pending("same")
        table.insert(first)
        let removedOther = table.remove(second)
        #expect(!removedOther)
        #expect(table.containsID(of: second))
        let removedFirst = table.remove(first)
        #expect(removedFirst)
        #expect(table.isEmpty)
    }

    @Test func replacingPutsTheNewElementInTheOldOnesPlaceAndAddsOneWithANewID() {
        var table = RequestTable()
        let first = pending("same")
        let second = pending("same")
        #expect(table.replace(first) == nil)
        #expect(table.replace(second) === first)
        #expect(table.count == 1)
        #expect(table["same"] === second)
        #expect(table["same", tag: RequestTable.tag(of: "same")] === second)
        #expect(table.replace(pending("other")) == nil)
        #expect(table.count == 2)
    }

    @Test func aTableThatEmptiesShrinksAndStillWorks() {
        var table = RequestTable()
        let requests = (0..<10_000).map { pending("burst-\($0)") }
        for request in requests { table.insert(request) }
        for request in requests.dropLast() {
            let removed = table.remove(request)
            #expect(removed)
        }
        #expect(table.count == 1)
        #expect(table["burst-9999"] === requests.last)
        let removed = table.remove("burst-9999")
        #expect(removed === requests.last)
        #expect(table.isEmpty)
        table.insert(pending("after"))
        #expect(table["after"] != nil)
    }
}
