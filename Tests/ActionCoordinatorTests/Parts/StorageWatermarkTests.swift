import ActionCoordinator
import ActionJournal
import ActionWire
import Testing

/// The disk watermark: measurements of the journal's free space in, crossings out; and the
/// core refusing new requests `storageFull` while it is crossed, serving everything else.
@Suite("Coordinator parts: disk watermark")
struct StorageWatermarkTests {
    @Test func crossesBelowTheMinimumAndBackAboveItByAnEighth() {
        var watermark = StorageWatermark(minimumBytes: 8_000)
        #expect(watermark.resumeBytes == 9_000)
        #expect(watermark.measured(freeBytes: 8_000) == nil, "at the minimum there is room")
        #expect(watermark.measured(freeBytes: 7_999) == .filled)
        #expect(watermark.isFull)
        #expect(watermark.measured(freeBytes: 6_000) == nil, "a crossing is reported once")
        #expect(watermark.measured(freeBytes: 8_500) == nil, "above the minimum, short of the resume level: still full")
        #expect(watermark.measured(freeBytes: 9_000) == .freed)
        #expect(!watermark.isFull && watermark.freeBytes == 9_000)
        #expect(watermark.measured(freeBytes: 8_200) == nil, "between the two levels, from above: room")
    }

    @Test func aMinimumOfZeroNeverRefuses() {
        var watermark = StorageWatermark(minimumBytes: 0)
        #expect(watermark.measured(freeBytes: 0) == nil)
        #expect(!watermark.isFull)
    }

    @Test func newRequestsAreRefusedWhileResendsAndResultsAreServed() {
        let h = CoordinatorHarness { $0.minFreeDiskBytes = 1_000 }
        let worker = WorkerID([0x01])
        h.ready(worker)
        let accepted = h.perform("before")
        #expect(h.core.measuredFreeDisk(999) == .filled)
        let journaled = h.outbox.journaled.count

        h.perform("refused")
        #expect(h.outcome("refused")?.failureCode == BusErrorCode.storageFull)
        #expect(h.outcome("refused").map { Self.message(of: $0).contains("999") && Self.message(of: $0).contains("1000") } == true,
                "the message says the free bytes and the minimum")
        // A resend of a request accepted before is still accepted, and its result finishes it.
        h.perform("before")
        #expect(h.acceptedIDs == ["before", "before"])
        h.complete(accepted, on: worker)
        #expect(h.outcome("before")?.isSuccess == true)
        // The refusal is not journaled; the outcome is (the headroom under the minimum is for it).
        #expect(h.outbox.journaled.count == journaled + 1)

        var statistics = h.core.statistics
        #expect(statistics.storageFullRefusals == 1 && statistics.storageFull == 1 && statistics.diskFreeBytes == 999)
        #expect(statistics.accepted == 1)

        // A Majordomo request is a new request each time: refused the same way.
        let majordomo = ClientAddress(routingID: [0xD1], protocol: .majordomo(.rfc18, service: "Echo.say"))
        h.perform("mdp", from: majordomo)
        let last = h.outbox.replies.last
        guard case .outcome(let refusal)? = last?.reply else {
            Issue.record("no outcome for the Majordomo request: \(String(describing: last))")
            return
        }
        #expect(refusal.failureCode == BusErrorCode.storageFull && last?.client == majordomo)
        #expect(h.core.statistics.storageFullRefusals == 2)

        #expect(h.core.measuredFreeDisk(1_100) == nil, "short of the resume level")
        #expect(h.core.measuredFreeDisk(1_125) == .freed)
        h.perform("after")
        #expect(h.acceptedIDs.last == "after")
        statistics = h.core.statistics
        #expect(statistics.storageFull == 0 && statistics.storageFullRefusals == 2 && statistics.accepted == 2)
    }

    static func message(of outcome: WireOutcome) -> String {
        if case .failure(_, let message) = outcome.result { return message }
        return ""
    }
}
