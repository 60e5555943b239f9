import FlyingFox
import Foundation
import Logging
import ServiceLifecycle

/// The HTTP side of a coordinator or a worker (`--http HOST:PORT`): `/healthz`, `/readyz`,
/// `/metrics` for Prometheus, and JSON APIs. Off by default; it serves on its own tasks and
/// reads the bus's state by asking the process's I/O loop, so it never touches a socket the
/// loop owns.
///
/// FlyingFox rather than hummingbird: the server answers a scrape and a few API calls, and
/// FlyingFox does that with Swift concurrency and plain sockets, without SwiftNIO's event loops
/// beside the ZeroMQ threads, and builds in seconds (see docs/ARCHITECTURE.md).
public final class OperationsServer: Service, Sendable {
    /// What a route answers: a status, a content type and a body.
    public struct Reply: Sendable {
        /// The HTTP status code.
        public var status: Int
        /// The `Content-Type` header's value.
        public var contentType: String
        /// The body, as sent.
        public var body: Data

        /// A JSON reply.
        public static func json(_ body: [UInt8], status: Int = 200) -> Reply {
            Reply(status: status, contentType: "application/json", body: Data(body))
        }

        /// A JSON error: `{"error":"..."}`.
        public static func error(_ status: Int, _ message: String) -> Reply {
            let encoded = (try? JSONEncoder().encode(["error": message])) ?? Data(#"{"error":"?"}"#.utf8)
            return Reply(status: status, contentType: "application/json", body: encoded)
        }

        /// A plain-text reply.
        public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> Reply {
            Reply(status: status, contentType: contentType, body: Data(text.utf8))
        }
    }

    /// A route's handler: the request's query items, then its reply.
    public typealias Handler = @Sendable (_ query: [String: String]) async -> Reply

    private let server: HTTPServer
    private let logger: Logger
    /// Where it listens, as given (`HOST:PORT`).
    public let address: String

    /// Makes a server on `address` (`HOST:PORT`, an IPv4 address or `localhost`) answering GET
    /// on `routes` (paths like `/metrics`), and WebSocket upgrades on `webSockets`' paths;
    /// anything else gets 404 or 405 with a JSON message. The routes and WebSockets in
    /// `payloadPaths` carry outcomes' payloads and are served as `payloadAccess` allows.
    public init(
        address: String, routes: [String: Handler], webSockets: [String: any WSMessageHandler] = [:],
        payloadPaths: Set<String> = [], payloadAccess: PayloadAccess = .open,
        background: [@Sendable () async -> Void] = [], logger: Logger
    ) throws {
        self.background = background
        self.payloadPaths = payloadPaths
        self.payloadAccess = payloadAccess
        let (host, port) = try Self.parse(address)
        self.address = address
        self.logger = logger
        server = HTTPServer(address: try .inet(ip4: host, port: port), logger: .disabled)
        self.routes = routes
        self.webSockets = webSockets
    }

    private let routes: [String: Handler]
    private let webSockets: [String: any WSMessageHandler]
    private let payloadPaths: Set<String>
    private let payloadAccess: PayloadAccess
    /// Work that runs while the server does (the dashboard's tail reading the outcome feed).
    private let background: [@Sendable () async -> Void]

    /// Parses `HOST:PORT`.
    public static func parse(_ address: String) throws -> (host: String, port: UInt16) {
        guard let colon = address.lastIndex(of: ":"), let port = UInt16(address[address.index(after: colon)...]) else {
            throw OperationsError("--http takes HOST:PORT (e.g. 127.0.0.1:8080), not '\(address)'")
        }
        let host = String(address[..<colon])
        return (host == "localhost" ? "127.0.0.1" : host.isEmpty ? "0.0.0.0" : host, port)
    }

    /// Serves until the calling task is cancelled or a graceful shutdown begins.
    public func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { try await self.serve() }
        } catch where Task.isCancelled || error is CancellationError {
            // Stopped on purpose: the server's own cancellation error is not a failure.
        } catch {
            let inUse = "\(error)".contains("(98)") || "\(error)".localizedCaseInsensitiveContains("in use")
            throw OperationsError(
                "cannot serve HTTP on \(address): \(error)"
                    + (inUse ? " (the port is taken: choose another with --http HOST:PORT, or turn it off with --no-http for dev)" : "")
            )
        }
    }

    private func serve() async throws {
        let routes = self.routes, payloadPaths = self.payloadPaths, payloadAccess = self.payloadAccess
        for (path, handler) in webSockets {
            let upgrade = WebSocketHTTPHandler.webSocket(handler)
            guard payloadPaths.contains(path) else {
                await server.appendRoute(HTTPRoute("GET \(path)"), to: upgrade)
                continue
            }
            await server.appendRoute(HTTPRoute("GET \(path)")) { request in
                if let refusal = payloadAccess.refusal(authorization: request.headers[.authorization], query: Self.query(of: request)) {
                    return Self.response(refusal)
                }
                return try await upgrade.handleRequest(request)
            }
        }
        await server.appendRoute("*") { request in
            guard let handler = routes[request.path] else {
                return Self.response(.error(404, "no such path: \(request.path); try /healthz, /readyz, /metrics or /api/..."))
            }
            guard request.method == .GET || request.method == .HEAD else {
                return Self.response(.error(405, "\(request.path) answers GET only"))
            }
            let query = Self.query(of: request)
            if payloadPaths.contains(request.path),
               let refusal = payloadAccess.refusal(authorization: request.headers[.authorization], query: query) {
                return Self.response(refusal)
            }
            return Self.response(await handler(query))
        }
        logger.info("HTTP listening", metadata: [
            "http.address": "\(address)", "http.payloads": "\(payloadPaths.isEmpty ? "none" : payloadAccess.summary)",
        ])
        let server = self.server
        try await withThrowingTaskGroup(of: Void.self) { group in
            for work in background { group.addTask { await work() } }
            group.addTask { try await server.run() }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// Waits until the server accepts connections.
    public func waitUntilListening() async throws {
        try await server.waitUntilListening()
    }

    private static func query(of request: HTTPRequest) -> [String: String] {
        var query: [String: String] = [:]
        for item in request.query { query[item.name] = item.value }
        return query
    }

    private static func response(_ reply: Reply) -> HTTPResponse {
        HTTPResponse(
            statusCode: HTTPStatusCode(reply.status, phrase: phrase(reply.status)),
            headers: [.contentType: reply.contentType],
            body: reply.body
        )
    }

    private static func phrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}

/// A misconfiguration of the HTTP side, said plainly.
public struct OperationsError: Error, CustomStringConvertible {
    /// What is wrong and what to do about it.
    public let description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
