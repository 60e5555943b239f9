import Foundation
import Testing
@testable import ZeroMQ

@Suite("CURVE and ZAP")
struct CurveTests {
    @Test func z85RoundTrip() throws {
        let bytes: [UInt8] = [0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B]
        // RFC 32's test vector.
        #expect(try Z85.encode(bytes) == "HelloWorld")
        #expect(try Z85.decode("HelloWorld") == bytes)
        #expect(throws: ZMQError.self) { try Z85.encode([1, 2, 3]) }
        #expect(throws: ZMQError.self) { try Z85.decode("abc") }
    }

    @Test func keyPairsAreDistinctAndDerivable() throws {
        let first = try CurveKeyPair.generate(), second = try CurveKeyPair.generate()
        #expect(first.publicKey.utf8.count == 40)
        #expect(first.secretKey.utf8.count == 40)
        #expect(first != second)
        #expect(try CurveKeyPair(secretKey: first.secretKey) == first)
        #expect(try Z85.decode(first.publicKey).count == 32)
    }

    @Test func allowedKeyPerformsAndRefusedKeyGetsNothing() throws {
        let context = try ZMQContext()
        let server = try CurveKeyPair.generate()
        let allowed = try CurveKeyPair.generate(), refused = try CurveKeyPair.generate()
        let authenticator = try ZAPAuthenticator(context: context) { request in
            request.mechanism == "CURVE" && request.curvePublicKey == allowed.publicKey
                ? .allow(userID: "allowed") : .deny(reason: "unknown key")
        }
        defer { authenticator.stop() }

        let router = try bounded(Socket(context, type: .router))
        defer { router.close() }
        try router.setOption(.curveServer, true)
        try router.setOption(.curveSecretKey, server.secretKey)
        try router.setOption(.zapDomain, "clients")
        let endpoint = try bindAnywhere(router, .tcp)

        func client(_ keys: CurveKeyPair?) throws -> Socket {
            let dealer = try bounded(Socket(context, type: .dealer))
            if let keys {
                try dealer.setOption(.curveServerKey, server.publicKey)
                try dealer.setOption(.curvePublicKey, keys.publicKey)
                try dealer.setOption(.curveSecretKey, keys.secretKey)
            }
            try dealer.connect(endpoint)
            return dealer
        }

        let good = try client(allowed)
        defer { good.close() }
        try good.send("hello")
        let received = try router.receiveMultipart()
        #expect(received.count == 2)
        #expect(received.string(at: 1) == "hello")
        #expect(authenticator.allowedCount == 1)

        let bad = try client(refused)
        defer { bad.close() }
        try bad.send("let me in", options: .dontWait)
        #expect(waitUntil { authenticator.deniedCount == 1 })

        let plain = try client(nil)
        defer { plain.close() }
        try plain.send("plaintext", options: .dontWait)

        // The refused and plaintext peers never complete a handshake, so nothing reaches the
        // server; a message sent by the allowed peer afterwards is the next thing it sees.
        try good.send("after")
        let next = try router.receiveMultipart()
        #expect(next.string(at: 1) == "after")
        #expect(!(try router.isReadable))
    }
}
