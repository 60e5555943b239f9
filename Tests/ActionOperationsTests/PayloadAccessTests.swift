import Foundation
import Testing
@testable import ActionOperations

struct PayloadAccessTests {
    @Test func theDefaultIsOpenOnLoopbackOnly() {
        for address in ["127.0.0.1:8080", "localhost:8080", "127.0.0.53:80"] {
            #expect(PayloadAccess.default(address: address) == .open, "\(address)")
        }
        for address in ["0.0.0.0:8080", ":8080", "10.0.0.4:8080", "192.168.1.2:80"] {
            #expect(PayloadAccess.default(address: address) != .open, "\(address)")
            #expect(PayloadAccess.default(address: address).refusal(authorization: nil, query: [:])?.status == 403, "\(address)")
        }
    }

    @Test func aBearerTokenIsCheckedInTheHeaderOrTheAccessTokenQueryItem() {
        let access = PayloadAccess.bearerToken("0123456789abcdef")
        #expect(access.refusal(authorization: "Bearer 0123456789abcdef", query: [:]) == nil)
        #expect(access.refusal(authorization: "bearer 0123456789abcdef", query: [:]) == nil)
        #expect(access.refusal(authorization: nil, query: ["access_token": "0123456789abcdef"]) == nil)
        #expect(access.refusal(authorization: nil, query: [:])?.status == 401)
        #expect(access.refusal(authorization: "Bearer 0123456789abcde", query: [:])?.status == 401)
        #expect(access.refusal(authorization: "Bearer 0123456789abcdefg", query: [:])?.status == 401)
        #expect(access.refusal(authorization: "Basic 0123456789abcdef", query: [:])?.status == 401)
        #expect(access.refusal(authorization: "Bearer ", query: [:])?.status == 401)
    }

    @Test func comparisonLooksAtEveryByte() {
        #expect(PayloadAccess.constantTimeEqual(Array("abc".utf8), Array("abc".utf8)))
        #expect(!PayloadAccess.constantTimeEqual(Array("abc".utf8), Array("abd".utf8)))
        #expect(!PayloadAccess.constantTimeEqual(Array("abc".utf8), Array("abcd".utf8)))
        #expect(!PayloadAccess.constantTimeEqual([], Array("a".utf8)))
        #expect(PayloadAccess.constantTimeEqual([], []))
    }

    @Test func aTokenFileMustHoldOneLongEnoughWord() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("payload-access-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func file(_ text: String) throws -> String {
            let path = directory.appendingPathComponent(UUID().uuidString).path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        #expect(try PayloadAccess.tokenFile(try file("  0123456789abcdef\n")) == .bearerToken("0123456789abcdef"))
        #expect(throws: OperationsError.self) { try PayloadAccess.tokenFile(try file("short\n")) }
        #expect(throws: OperationsError.self) { try PayloadAccess.tokenFile(try file("")) }
        #expect(throws: OperationsError.self) { try PayloadAccess.tokenFile(try file("0123456789 abcdef")) }
        #expect(throws: OperationsError.self) { try PayloadAccess.tokenFile(directory.appendingPathComponent("missing").path) }
    }
}
