import Foundation
import Testing

@testable import GroupLeadership

/// The HTTP/1.1 answers ``PlainHTTP`` reads, as etcd's gateway writes them.
@Suite struct PlainHTTPTests {
    func answer(_ text: String) -> Data { Data(text.replacingOccurrences(of: "\n", with: "\r\n").utf8) }

    @Test func readsAChunkedErrorWithTrailers() throws {
        // What etcd 3.4 answers to a revoke of a lease that is gone (the answer URLSession on
        // Linux stops the process on).
        let (status, body) = try PlainHTTP.parse(answer("""
            HTTP/1.1 404 Not Found
            Content-Type: application/json
            Trailer: Grpc-Trailer-Content-Type
            Transfer-Encoding: chunked

            1a
            {"error":"lease not found"
            3;ext=1
            ,"c
            6
            ode":5
            1
            }
            0
            Grpc-Trailer-Content-Type: application/grpc


            """))
        #expect(status == 404)
        #expect(String(decoding: body, as: UTF8.self) == #"{"error":"lease not found","code":5}"#)
    }

    @Test func readsASizedBody() throws {
        let (status, body) = try PlainHTTP.parse(answer("HTTP/1.1 200 OK\nContent-Length: 2\n\n{}"))
        #expect(status == 200)
        #expect(body == Data("{}".utf8))
    }

    @Test func refusesWhatIsNotHTTP() {
        #expect(throws: PlainHTTP.Failure.self) { try PlainHTTP.parse(answer("SSH-2.0-OpenSSH\n\n")) }
        #expect(throws: PlainHTTP.Failure.self) { try PlainHTTP.parse(answer("HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\nzz\n")) }
        #expect(throws: PlainHTTP.Failure.self) { try PlainHTTP.parse(Data("HTTP/1.1 200 OK\r\n".utf8)) }
    }
}
