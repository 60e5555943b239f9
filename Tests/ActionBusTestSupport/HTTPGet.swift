import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One HTTP/1.1 request on loopback over a plain socket (no URLSession: nothing to install),
/// returning the status code and the body; `nil` when nothing answers.
package func httpRequest(
    _ method: String = "GET", port: Int, path: String, headers: [String: String] = [:], timeout: TimeInterval = 5
) -> (status: Int, body: String)? {
    // Glibc imports SOCK_STREAM as an enum case, Darwin as an Int32.
    #if canImport(Glibc)
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var wait = timeval(tv_sec: Int(timeout), tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else { return nil }
    // `headers` may replace the default Connection (a WebSocket upgrade's).
    var all = ["Connection": "close"]
    all.merge(headers) { $1 }
    let extra = all.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)\r\n" }.joined()
    let request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\(extra)\r\n"
    guard request.utf8CString.withUnsafeBufferPointer({ send(fd, $0.baseAddress, $0.count - 1, 0) }) > 0 else { return nil }
    var response: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = recv(fd, &buffer, buffer.count, 0)
        if count <= 0 { break }
        response.append(contentsOf: buffer[0..<count])
    }
    let text = String(decoding: response, as: UTF8.self)
    guard let statusLine = text.split(separator: "\r\n").first, statusLine.hasPrefix("HTTP/1.1 "),
          let status = Int(statusLine.dropFirst(9).prefix(3)) else { return nil }
    let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
    return (status, body)
}
