import Foundation
import Testing
@testable import ZeroMQ

@Suite("Socket patterns")
struct SocketPatternTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    @Test("PAIR round trip", arguments: Transport.allCases)
    func pair(transport: Transport) throws {
        let a = try bounded(Socket(context, type: .pair)), b = try bounded(Socket(context, type: .pair))
        defer { a.close(); b.close() }
        try b.connect(bindAnywhere(a, transport))
        try b.send("ping")
        #expect(try a.receiveString() == "ping")
        try a.send("pong")
        #expect(try b.receiveString() == "pong")
    }

    @Test("PUSH to PULL", arguments: Transport.allCases)
    func pushPull(transport: Transport) throws {
        let pull = try bounded(Socket(context, type: .pull)), push = try bounded(Socket(context, type: .push))
        defer { pull.close(); push.close() }
        try push.connect(bindAnywhere(pull, transport))
        for index in 0..<100 { try push.send("m\(index)") }
        for index in 0..<100 { #expect(try pull.receiveString() == "m\(index)") }
    }

    @Test("REQ/REP lockstep", arguments: Transport.allCases)
    func requestReply(transport: Transport) throws {
        let rep = try bounded(Socket(context, type: .rep)), req = try bounded(Socket(context, type: .req))
        defer { rep.close(); req.close() }
        try req.connect(bindAnywhere(rep, transport))
        try req.send("question")
        #expect(try rep.receiveString() == "question")
        try rep.send("answer")
        #expect(try req.receiveString() == "answer")
        // REQ may not send twice without a reply in between.
        try req.send("again")
        #expect(throws: ZMQError.self) { try req.send("too soon", options: .dontWait) }
        do {
            try req.send("too soon", options: .dontWait)
        } catch let error as ZMQError {
            #expect(error.code == .invalidState)
        }
    }

    @Test("DEALER/ROUTER with routing ids", arguments: Transport.allCases)
    func dealerRouter(transport: Transport) throws {
        let router = try bounded(Socket(context, type: .router)), dealer = try bounded(Socket(context, type: .dealer))
        defer { router.close(); dealer.close() }
        try router.setOption(.routerMandatory, true)
        try dealer.setOption(.routingID, "worker-1")
        try dealer.connect(bindAnywhere(router, transport))
        try dealer.send(Multipart(strings: ["hello", "world"]))
        let received = try router.receiveMultipart()
        #expect(received.frames.map { String(decoding: $0, as: UTF8.self) } == ["worker-1", "hello", "world"])
        try router.send(Multipart(strings: ["worker-1", "reply"]))
        #expect(try dealer.receiveMultipart() == Multipart(strings: ["reply"]))
    }

    @Test("PUB/SUB filters by topic prefix", arguments: Transport.allCases)
    func publishSubscribe(transport: Transport) throws {
        let pub = try bounded(Socket(context, type: .pub)), sub = try bounded(Socket(context, type: .sub))
        defer { pub.close(); sub.close() }
        try sub.setOption(.subscribe, "news.")
        try sub.connect(bindAnywhere(pub, transport))
        // Subscriptions travel asynchronously (slow joiner): publish until the first arrives.
        let joined = try waitUntil {
            try pub.send(Multipart(strings: ["news.join", "x"]))
            return try sub.isReadable
        }
        #expect(joined)
        try pub.send(Multipart(strings: ["sport.score", "1-0"]))
        try pub.send(Multipart(strings: ["news.today", "hello"]))
        // Join probes may still be in flight; the first other message must be the news.
        var next = try sub.receiveMultipart()
        while next.string(at: 0) == "news.join" { next = try sub.receiveMultipart() }
        #expect(next == Multipart(strings: ["news.today", "hello"]))
    }

    @Test("XPUB sees subscriptions from XSUB", arguments: Transport.allCases)
    func xpubXsub(transport: Transport) throws {
        let xpub = try bounded(Socket(context, type: .xpub)), xsub = try bounded(Socket(context, type: .xsub))
        defer { xpub.close(); xsub.close() }
        try xpub.setOption(.xpubVerbose, true)
        try xsub.connect(bindAnywhere(xpub, transport))
        try xsub.send([0x01] + Array("alerts".utf8))
        let subscription = try xpub.receive { bytes, _ in Array(bytes) }
        #expect(subscription == [0x01] + Array("alerts".utf8))
        try xpub.send(Multipart(strings: ["alerts.disk", "full"]))
        #expect(try xsub.receiveMultipart() == Multipart(strings: ["alerts.disk", "full"]))
    }
}
