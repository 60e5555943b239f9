import ActionTransport
import Testing
import ZeroMQ
@testable import ActionWire

/// ABP/5 packs a message's frames into one ZeroMQ frame; receivers take it packed or frame by frame.
@Suite("Wire packing")
struct WirePackingTests {
    static let h = WireGoldenTests.h
    static let t = WireGoldenTests.t

    /// A PERFORM of two requests, as the codec writes it.
    static var performBatch: WireFrameList {
        var frames = WireFrameList()
        ClientMessage.performBatch([WireGoldenTests.request, WireRequest(requestID: "c1:8", action: "Echo.say", input: t("{}"))])
            .encode(into: &frames)
        return frames
    }

    @Test func packedLayoutIsTheHeaderThenEachFrameWithItsLength() {
        let packed = WirePacking.pack(WireFrameList([Self.h(0x06), Self.t("c1:7"), [], Self.t("c1:10")]))
        #expect(packed == Self.h(0x06) + [0, 0, 0, 4] + Self.t("c1:7") + [0, 0, 0, 0] + [0, 0, 0, 5] + Self.t("c1:10"))
        // A message of its header alone packs to the header.
        #expect(WirePacking.pack(WireFrameList([Self.h(0x04)])) == Self.h(0x04))
    }

    @Test func unpackingGivesBackEveryFrame() throws {
        // Empty frames too: a frame's length is all that bounds it.
        for frames in [Self.performBatch, WireFrameList([Self.h(0x03), Self.t("q1"), []]), WireFrameList([Self.h(0x06), [], [], Self.t("b:2")])] {
            #expect(WirePacking.unpack(WirePacking.pack(frames)) == frames)
        }
        let unpacked = try #require(WirePacking.unpack(WirePacking.pack(Self.performBatch)))
        #expect(try ClientMessage.decode(unpacked) == (try ClientMessage.decode(Self.performBatch)))
    }

    @Test func packedFramesPackAfterTheirEnvelope() {
        var frames = PackedFrames()
        frames.append(Self.t("routing-id"))
        ClientMessage.performBatch([WireGoldenTests.request]).encode(into: &frames)
        frames.appendEmpty()
        // Written out by hand: the header, the record with its length, an empty frame's length.
        let record = Array(frames.frame(at: 2))
        let expected = Self.h(0x01) + withUnsafeBytes(of: UInt32(record.count).bigEndian, Array.init) + record + [0, 0, 0, 0]
        #expect(frames.packedCount(from: 1) == expected.count)
        let written = [UInt8](unsafeUninitializedCapacity: expected.count) { buffer, initialized in
            frames.pack(from: 1, into: UnsafeMutableRawBufferPointer(buffer))
            initialized = expected.count
        }
        #expect(written == expected)
        #expect(WirePacking.unpack(written)?.frames == (1..<frames.count).map { Array(frames.frame(at: $0)) })
    }

    @Test func onlyThisVersionsHeaderWithMoreAfterItIsPacked() {
        func isPacked(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { WirePacking.isPacked($0) } }
        #expect(isPacked(Self.h(0x01) + [0, 0, 0, 0]))
        #expect(!isPacked(Self.h(0x04)), "a header alone is the header")
        #expect(!isPacked([0x41, 0x42, 0x55, 0x53, 0x04, 0x01, 0, 0, 0, 0]), "ABP/4 sent frames one by one")
        #expect(!isPacked([0x41, 0x42, 0x55, 0x54, 0x05, 0x01, 0, 0, 0, 0]), "not the signature")
        #expect(!isPacked([]))
    }

    @Test func lengthsThatDoNotAddUpUnpackNothing() {
        let good = WirePacking.pack(WireFrameList([Self.h(0x06), Self.t("c1:7"), Self.t("c1:8")]))
        #expect(WirePacking.unpack(Array(good.dropLast())) == nil, "the last frame cut short")
        #expect(WirePacking.unpack(good + [0]) == nil, "a byte after the last frame")
        #expect(WirePacking.unpack(good + [0, 0, 0]) == nil, "a length cut short")
        #expect(WirePacking.unpack(Self.h(0x06) + [0xFF, 0xFF, 0xFF, 0xFF, 0x41]) == nil, "a length past the end")
        var called = false
        let unpacked = (Array(good.dropLast())).withUnsafeBytes { WirePacking.forEachFrame(in: $0) { _ in called = true } }
        #expect(!unpacked && !called, "nothing is handed over from a message that does not unpack")
    }

    @Test func aMessageOfTooManyFramesIsNotUnpacked() {
        let ids = WireFrameList([Self.h(0x06)] + Array(repeating: [], count: WirePacking.maxFrames - 1))
        #expect(WirePacking.unpack(WirePacking.pack(ids))?.count == WirePacking.maxFrames)
        var more = ids
        more.appendEmpty()
        #expect(WirePacking.unpack(WirePacking.pack(more)) == nil)
    }

    @Test func theLargestBatchesASenderMakesFitTheFrameLimitOfTheSmallestBodyLimit() {
        // What the senders' batching lets through at most: bodies of up to `WireBatching.maxBytes`
        // in `maxRecords` records whose names are all as long as names go; or an ACK of as many
        // ids as a message takes, each as long as a name goes. A frame past the limit would cost
        // the sender its connection, and its resend the same again.
        let limit = WirePacking.maxFrameBytes(maxMessageBytes: 1)
        func name(_ prefix: String, _ index: Int) -> String {
            let head = "\(prefix)\(index)."
            return head + String(repeating: "n", count: WireLimits().maxNameBytes - head.utf8.count)
        }
        let input = [UInt8](repeating: 0x41, count: WireBatching.maxBytes / WireBatching.maxRecords)
        let requests = (0..<WireBatching.maxRecords).map {
            WireRequest(requestID: name("r", $0), action: name("A", $0), session: name("s", $0), timeoutMilliseconds: 1,
                        contentType: name("t/", $0), input: input, userInitiated: false)
        }
        var perform = WireFrameList()
        ClientMessage.performBatch(requests).encode(into: &perform)
        #expect(Int64(WirePacking.pack(perform).count) <= limit)
        var acknowledge = WireFrameList()
        ClientMessage.acknowledge(requestIDs: (0..<WireLimits().maxRequestIDsPerMessage).map { name("r", $0) }).encode(into: &acknowledge)
        #expect(Int64(WirePacking.pack(acknowledge).count) <= limit)
        // The longest lists of names: READY, SWITCHES and FEATURES of as many entries as allowed.
        let names = (0..<WireLimits().maxActionsPerWorker).map { name("F", $0).replacingOccurrences(of: ".", with: "-") }
        var ready = WireFrameList()
        let actions = (0..<WireLimits().maxActionsPerWorker).map { name("A", $0) }
        WorkerMessage.ready(WorkerRegistration(name: name("w", 0), credits: 1, actions: actions)).encode(into: &ready)
        var switches = WireFrameList()
        WorkerInstruction.switches(Dictionary(uniqueKeysWithValues: names.map { ($0, FeatureSwitch.on) })).encode(into: &switches)
        var features = WireFrameList()
        ClientMessage.features(queryID: name("q", 0), changes: Dictionary(uniqueKeysWithValues: names.map { ($0, FeatureSwitch.on) }))
            .encode(into: &features)
        for list in [ready, switches, features] {
            #expect(Int64(WirePacking.pack(list).count) <= limit)
        }
        #expect(WirePacking.pack(features).count == WirePacking.largestNameList, "FEATURES is the longest, and the bound is exact")
        // One body as large as the limit allows, alone in its message, fits too.
        let large = WireRequest(requestID: "r:1", action: "Echo.say", input: [UInt8](repeating: 0x41, count: 4 << 20))
        var single = WireFrameList()
        ClientMessage.perform(large).encode(into: &single)
        #expect(Int64(WirePacking.pack(single).count) <= WirePacking.maxFrameBytes(maxMessageBytes: 4 << 20))
    }

    @Test func aPackedHeaderThatDoesNotUnpackIsRefusedAsTruncated() {
        // What a receiver hands the codec when the lengths do not add up: the frame as it came.
        let frame = Self.h(0x01) + [0, 0, 0, 9, 1, 2]
        #expect(throws: WireError.self) { try ClientMessage.decode(WireFrameList([frame])) }
        do {
            _ = try WireHeader.command(in: frame[...])
            Issue.record("a header of 12 bytes decoded")
        } catch {
            #expect(error.code == .truncated && error.message.contains("packed"), "\(error)")
        }
        // Another version's long first frame is another version, whatever its layout.
        var other = frame
        other[4] = 9
        #expect(throws: WireError(.unsupportedVersion, "protocol version 9 is not supported (this peer speaks \(WireHeader.version))")) {
            try WireHeader.command(in: other[...])
        }
    }

    @Test func socketsSendOneFrameAndReceiveTheMessagesFrames() throws {
        let context = try ZMQContext()
        let router = try Socket(context, type: .router)
        let dealer = try Socket(context, type: .dealer)
        defer {
            dealer.close()
            router.close()
        }
        try router.setOption(.receiveTimeout, 5000)
        try dealer.setOption(.receiveTimeout, 5000)
        try dealer.setOption(.routingID, Self.t("d1"))
        try router.bind("inproc://wire-packing")
        try dealer.connect("inproc://wire-packing")
        var frames = PackedFrames()
        Self.performBatch.frames.forEach { frames.append($0) }

        // Packed on the wire: the routing id, then one frame.
        try dealer.sendBusMessage(frames)
        let raw = try router.receiveMultipart()
        #expect(raw.frames == [Self.t("d1"), WirePacking.pack(Self.performBatch)])

        // Unpacked on receipt, after the envelope.
        try dealer.sendBusMessage(frames)
        #expect(try router.receiveBusMessage(envelope: 1).frames == [Self.t("d1")] + Self.performBatch.frames)

        // Frame by frame, as ABP/4 sent and as a peer still may: taken as it came.
        try dealer.send(Multipart(Self.performBatch.frames))
        #expect(try router.receiveBusMessage(envelope: 1).frames == [Self.t("d1")] + Self.performBatch.frames)

        // A Majordomo request (an empty frame first) passes through as it is.
        let majordomo: [[UInt8]] = [[], Self.t("MDPC01"), Self.t("Echo.say"), Self.t("{}")]
        try dealer.send(Multipart(majordomo))
        #expect(try router.receiveBusMessage(envelope: 1).frames == [Self.t("d1")] + majordomo)

        // Back to the dealer: the envelope goes as a frame of its own, for the router to route by.
        var reply = PackedFrames()
        reply.append(Self.t("d1"))
        ClientReply.accepted(requestIDs: ["c1:7", "c1:8"]).encode(into: &reply)
        try router.sendBusMessage(reply, envelope: 1)
        let received = try dealer.receiveBusMessage()
        #expect(try ClientReply.decode(WireFrameList(received.frames)) == .accepted(requestIDs: ["c1:7", "c1:8"]))
    }
}
