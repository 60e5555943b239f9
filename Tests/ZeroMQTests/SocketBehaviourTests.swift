import Foundation
import Testing
@testable import ZeroMQ

@Suite("Socket behaviour")
struct SocketBehaviourTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    @Test func versionAndCapabilities() {
        #expect(ZMQ.version.major == 4)
        #expect(ZMQ.versionString.hasPrefix("4."))
        #expect(ZMQ.has("curve"))
    }

    @Test func multipartFramesSurviveIntact() throws {
        let pull = try bounded(Socket(context, type: .pull)), push = try bounded(Socket(context, type: .push))
        defer { pull.close(); push.close() }
        try push.connect(bindAnywhere(pull, .tcp))
        var outgoing = Multipart()
        outgoing.append("header")
        outgoing.appendEmpty()
        outgoing.append([UInt8](repeating: 0xAB, count: 70_000))
        outgoing.append([0x00, 0xFF])
        try push.send(outgoing)
        var incoming = Multipart()
        try pull.receive(into: &incoming)
        #expect(incoming == outgoing)
        #expect(incoming.count == 4)
        #expect(incoming[1].isEmpty)
        incoming.removeFirst(2)
        #expect(incoming.count == 2)
        #expect(incoming[1] == [0x00, 0xFF])
    }

    @Test func reusedMultipartKeepsItsStorage() throws {
        let pull = try bounded(Socket(context, type: .pull)), push = try bounded(Socket(context, type: .push))
        defer { pull.close(); push.close() }
        try push.connect(bindAnywhere(pull, .inproc))
        var incoming = Multipart()
        for round in 0..<50 {
            try push.send(Multipart(strings: ["r\(round)", "body"]))
            #expect(waitUntil { pull.receiveIfAvailable(into: &incoming) })
            #expect(incoming.string(at: 0) == "r\(round)")
            #expect(incoming.count == 2)
        }
    }

    @Test func ownedMessagesAreSentWithoutCopy() throws {
        let pull = try bounded(Socket(context, type: .pull)), push = try bounded(Socket(context, type: .push))
        defer { pull.close(); push.close() }
        try push.connect(bindAnywhere(pull, .inproc))
        let message = try Message("owned")
        let count = message.count
        #expect(count == 5)
        try push.send(message)
        let received = try pull.receiveMessage()
        let text = received.string, more = received.hasMore
        #expect(text == "owned")
        #expect(!more)
    }

    @Test func nonBlockingReceiveReportsWouldBlock() throws {
        let pull = try Socket(context, type: .pull)
        defer { pull.close() }
        try pull.bind("inproc://empty-\(UUID().uuidString)")
        let error = #expect(throws: ZMQError.self) { try pull.receiveString(options: .dontWait) }
        #expect(error?.code == .wouldBlock)
        #expect(error?.errno == EAGAIN)
        #expect(error?.call == "zmq_msg_recv")
        var buffer = Multipart()
        #expect(!pull.receiveIfAvailable(into: &buffer))
    }

    @Test func nonBlockingSendWithoutPeerReportsWouldBlock() throws {
        let dealer = try Socket(context, type: .dealer)
        defer { dealer.close() }
        let error = #expect(throws: ZMQError.self) { try dealer.send("nobody", options: .dontWait) }
        #expect(error?.code == .wouldBlock)
    }

    @Test func routerMandatoryReportsUnknownPeer() throws {
        let router = try Socket(context, type: .router)
        defer { router.close() }
        try router.setOption(.routerMandatory, true)
        _ = try bindAnywhere(router, .tcp)
        let error = #expect(throws: ZMQError.self) {
            try router.send(Multipart(strings: ["ghost", "hello"]), options: .dontWait)
        }
        #expect(error?.code == .hostUnreachable)
        #expect(error?.errno == EHOSTUNREACH)
    }

    @Test func pollerTimesOutWithNothingReady() throws {
        let pull = try Socket(context, type: .pull)
        defer { pull.close() }
        _ = try bindAnywhere(pull, .inproc)
        var poller = Poller()
        let index = poller.add(pull)
        let started = ContinuousClock.now
        let ready = try poller.poll(timeoutMilliseconds: 50)
        #expect(ready == 0)
        #expect(!poller.isReadable(index))
        // A lower bound only: the poll must not return before its timeout.
        #expect(ContinuousClock.now - started >= .milliseconds(45))
    }

    @Test func pollerReportsTheReadySocket() throws {
        let first = try Socket(context, type: .pull), second = try Socket(context, type: .pull)
        let push = try bounded(Socket(context, type: .push))
        defer { first.close(); second.close(); push.close() }
        _ = try bindAnywhere(first, .inproc)
        try push.connect(bindAnywhere(second, .inproc))
        var poller = Poller()
        poller.add(first)
        poller.add(second)
        try push.send("ready")
        #expect(try poller.poll(timeoutMilliseconds: 5000) == 1)
        #expect(!poller.isReadable(0))
        #expect(poller.isReadable(1))
        #expect(poller.index(of: second) == 1)
    }

    @Test func optionsRoundTrip() throws {
        let socket = try Socket(context, type: .router)
        defer { socket.close() }
        #expect(try socket.option(.linger) == 0)
        try socket.setOption(.sendHighWaterMark, 5000)
        #expect(try socket.option(.sendHighWaterMark) == 5000)
        try socket.setOption(.maxMessageSize, 1 << 20)
        #expect(try socket.option(.maxMessageSize) == 1 << 20)
        try socket.setOption(.heartbeatInterval, 1000)
        #expect(try socket.option(.heartbeatInterval) == 1000)
        try socket.setOption(.immediate, true)
        #expect(try socket.option(.immediate))
        try socket.setOption(.routingID, "router-a")
        #expect(try socket.option(.routingID) == Array("router-a".utf8))
        let error = #expect(throws: ZMQError.self) { try socket.connect("not-an-endpoint") }
        #expect(error?.code == .invalidArgument)
    }

    @Test func closingReleasesTheSocket() throws {
        let socket = try Socket(context, type: .dealer)
        #expect(context.openSocketCount == 1)
        socket.close()
        socket.close()
        #expect(context.openSocketCount == 0)
        #expect(socket.isClosed)
    }
}
