@testable import ActionCoordinator
import ActionWire
import Testing

/// Admission alone: one sender per address, one share per connection, the two limits, and what
/// makes a resend the same request.
@Suite("Coordinator parts: admission")
struct AdmissionTests {
    @Test func oneSenderPerAddressAndOneSharePerConnection() {
        let admission = Admission(maxQueued: 10, maxQueuedPerClient: 2)
        let plain = ClientAddress(routingID: [1])
        let curve = ClientAddress(routingID: [1], curveKey: "key")
        let first = admission.sender(plain)
        #expect(admission.sender(plain) === first)
        let second = admission.sender(curve)
        #expect(second !== first && second.share === first.share, "one connection, one share")
        #expect(admission.sender(ClientAddress(routingID: [2])).share !== first.share)
    }

    @Test func theLimitsRefuseWithTheirReasons() {
        let admission = Admission(maxQueued: 3, maxQueuedPerClient: 2)
        let sender = admission.sender(ClientAddress(routingID: [1]))
        #expect(admission.fullRefusal(unfinished: 2) == nil)
        #expect(admission.fullRefusal(unfinished: 3)?.contains("limit 3") == true)
        #expect(admission.shareRefusal(sender) == nil)
        sender.share.unfinished = 2
        #expect(admission.shareRefusal(sender)?.contains("share is 2") == true)
        #expect(admission.activeClients == 1)
    }

    @Test func idleConnectionsAreForgottenAndBusyOnesKept() {
        let admission = Admission(maxQueued: 10, maxQueuedPerClient: 10)
        let busy = admission.sender(ClientAddress(routingID: [1]))
        busy.share.unfinished = 1
        let idle = admission.sender(ClientAddress(routingID: [2]))
        admission.forgetIdleClients()
        #expect(admission.clientShares.count == 1)
        #expect(admission.sender(ClientAddress(routingID: [1])) === busy)
        #expect(admission.sender(ClientAddress(routingID: [2])) !== idle, "made again")
    }

    @Test func aResendMustRepeatTheActionTheSessionAndTheInput() {
        let request = WireRequest(requestID: "r", action: "Echo.say", session: "s", input: Array("{}".utf8))
        let digest = InputDigest.of(request.input[...])
        #expect(Admission.conflict(request, input: request.input[...], original: ("Echo.say", "s", digest)) == nil)
        #expect(Admission.conflict(request, input: request.input[...], original: ("Echo.other", "s", digest)) == "action Echo.other")
        #expect(Admission.conflict(request, input: request.input[...], original: ("Echo.say", "t", digest)) == "session 't'")
        #expect(Admission.conflict(request, input: Array("[]".utf8)[...], original: ("Echo.say", "s", digest)) == "another input")
        #expect(Admission.conflict(request, input: Array("[]".utf8)[...], original: ("Echo.say", "s", nil)) == nil,
                "an original without a digest (recovered) is not compared by input")
    }
}
