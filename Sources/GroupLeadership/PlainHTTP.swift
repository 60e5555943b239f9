import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One HTTP/1.1 POST or GET over a plain TCP socket, a connection per request (`Connection: close`),
/// within a deadline: what ``EtcdClient`` sends etcd's gateway, and `actionbus group` a member.
///
/// Not URLSession: FoundationNetworking on Linux stops the process ("Transfer completed, but
/// there's no response", a fatal error) on a response with HTTP trailers, and etcd 3.4's
/// gateway sends a `Trailer` header with every error it answers (a lease not found, a bad
/// request); it also does not keep sub-second timeouts. A request here is bounded as a whole
/// by its deadline (connecting, sending and reading), and reads a chunked or a sized body.
package enum PlainHTTP {
    /// Why a request got no answer.
    enum Failure: Error, CustomStringConvertible {
        case unresolvable(String)
        case connectionFailed(String)
        case timedOut
        case malformed(String)

        var description: String {
            switch self {
            case let .unresolvable(host): "cannot resolve \(host)"
            case let .connectionFailed(reason): "connection failed: \(reason)"
            case .timedOut: "timed out"
            case let .malformed(reason): "malformed HTTP answer: \(reason)"
            }
        }
    }

    /// The most of an answer read: etcd's answers here are small.
    static let maximumAnswerBytes = 16 << 20

    /// Posts `body` (JSON) to `url` on a thread of its own (the calls block); returns the status
    /// and the body of the answer.
    static func post(_ url: URL, body: Data, timeout: Duration) async throws -> (status: Int, body: Data) {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try requestBlocking("POST", url, body: body, deadline: .now + timeout) })
            }
        }
    }

    /// Gets `url` on a thread of its own; returns the status and the body of the answer.
    package static func get(_ url: URL, timeout: Duration) async throws -> (status: Int, body: Data) {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try requestBlocking("GET", url, body: Data(), deadline: .now + timeout) })
            }
        }
    }

    private static func requestBlocking(
        _ method: String, _ url: URL, body: Data, deadline: ContinuousClock.Instant
    ) throws -> (status: Int, body: Data) {
        guard let host = url.host else { throw Failure.unresolvable(url.absoluteString) }
        let port = url.port ?? 80
        let path = (url.path.isEmpty ? "/" : url.path) + (url.query.map { "?\($0)" } ?? "")
        let fd = try openConnection(host: host, port: port, deadline: deadline)
        defer { close(fd) }
        let hostHeader = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var request = Data(
            "\(method) \(path) HTTP/1.1\r\nHost: \(hostHeader)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8
        )
        request.append(body)
        try sendAll(fd, request, deadline: deadline)
        let answer = try receiveUntilClosed(fd, deadline: deadline)
        return try parse(answer)
    }

    /// A connected socket to `host:port` (the first address that accepts), or the reason none did.
    private static func openConnection(host: String, port: Int, deadline: ContinuousClock.Instant) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { throw Failure.unresolvable(host) }
        defer { freeaddrinfo(list) }
        var lastReason = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            let fd = socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
            guard fd >= 0 else { continue }
            #if canImport(Darwin)
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            // Non-blocking from here on: every wait is a poll bounded by the deadline.
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            if connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 { return fd }
            guard errno == EINPROGRESS else {
                lastReason = String(cString: strerror(errno))
                close(fd)
                continue
            }
            do {
                try wait(fd, for: Int16(POLLOUT), deadline: deadline)
            } catch {
                close(fd)
                throw error
            }
            var status: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &status, &length)
            if status == 0 { return fd }
            lastReason = String(cString: strerror(status))
            close(fd)
        }
        throw Failure.connectionFailed(lastReason)
    }

    /// Waits until `fd` is ready for `events`, or throws ``Failure/timedOut`` at the deadline.
    private static func wait(_ fd: Int32, for events: Int16, deadline: ContinuousClock.Instant) throws {
        while true {
            let left = deadline - .now
            guard left > .zero else { throw Failure.timedOut }
            let milliseconds = Int32(clamping: left.components.seconds * 1_000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0, errno != EINTR { throw Failure.connectionFailed(String(cString: strerror(errno))) }
        }
    }

    private static func sendAll(_ fd: Int32, _ data: Data, deadline: ContinuousClock.Instant) throws {
        #if os(Linux)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0
        #endif
        var offset = 0
        while offset < data.count {
            try wait(fd, for: Int16(POLLOUT), deadline: deadline)
            let sent = data.withUnsafeBytes { bytes in send(fd, bytes.baseAddress! + offset, data.count - offset, flags) }
            if sent > 0 {
                offset += sent
            } else if sent < 0, errno != EAGAIN, errno != EINTR {
                throw Failure.connectionFailed(String(cString: strerror(errno)))
            }
        }
    }

    private static func receiveUntilClosed(_ fd: Int32, deadline: ContinuousClock.Instant) throws -> Data {
        var answer = Data()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            try wait(fd, for: Int16(POLLIN), deadline: deadline)
            let count = recv(fd, &buffer, buffer.count, 0)
            if count == 0 { return answer }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                throw Failure.connectionFailed(String(cString: strerror(errno)))
            }
            answer.append(contentsOf: buffer[0..<count])
            guard answer.count <= maximumAnswerBytes else { throw Failure.malformed("answer over \(maximumAnswerBytes) bytes") }
        }
    }

    /// The status and body of a whole HTTP/1.1 answer: a chunked body decoded (its trailers
    /// dropped), a sized one cut to its Content-Length.
    static func parse(_ answer: Data) throws -> (status: Int, body: Data) {
        let bytes = [UInt8](answer)
        guard let headerEnd = find([13, 10, 13, 10], in: bytes, from: 0) else { throw Failure.malformed("no end of headers") }
        let head = String(decoding: bytes[0..<headerEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw Failure.malformed("status line \(head[0])")
        }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let rest = Array(bytes[(headerEnd + 4)...])
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            return (status, try dechunk(rest))
        }
        if let length = headers["content-length"].flatMap(Int.init), length <= rest.count {
            return (status, Data(rest[0..<length]))
        }
        return (status, Data(rest))
    }

    /// The body of a chunked transfer: each chunk's size line (hexadecimal, extensions ignored),
    /// its bytes and CRLF, until the chunk of size 0.
    private static func dechunk(_ bytes: [UInt8]) throws -> Data {
        var body = Data()
        var position = 0
        while true {
            guard let lineEnd = find([13, 10], in: bytes, from: position) else { throw Failure.malformed("chunk size line cut short") }
            let sizeText = String(decoding: bytes[position..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                throw Failure.malformed("chunk size \(sizeText)")
            }
            if size == 0 { return body }
            let start = lineEnd + 2
            guard start + size <= bytes.count else { throw Failure.malformed("chunk cut short") }
            body.append(contentsOf: bytes[start..<(start + size)])
            position = start + size + 2
        }
    }

    private static func find(_ pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= pattern.count, start <= bytes.count - pattern.count else { return nil }
        for index in start...(bytes.count - pattern.count) where bytes[index..<(index + pattern.count)].elementsEqual(pattern) {
            return index
        }
        return nil
    }
}
