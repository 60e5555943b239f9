import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP port on 127.0.0.1 that nothing uses now, so parallel test runs never collide.
///
/// Drawn below Linux's ephemeral range (32768-60999): a port the kernel picks for a bind to 0
/// comes from that range, where the outgoing connections of other tests (the garbage soak
/// makes thousands) take their local ports too, and one of them may take it before the
/// coordinator binds it.
///
/// Never one this process handed out before: a port is free only until its process binds it,
/// so two picks in a row (a fixture's three endpoints) could otherwise draw the same number,
/// and a later test the port of an earlier one whose process is still going away.
///
/// Unseeded on purpose: which free port a test gets is not an input to what it checks, and a
/// replayed seed must not replay a port that another run holds now.
package func freeLoopbackPort() throws -> Int {
    for _ in 0..<200 {
        let candidate = Int.random(in: 20_000..<32_000)
        guard HandedOutPorts.shared.claim(candidate) else { continue }
        if (try? bindLoopback(port: candidate)) != nil { return candidate }
    }
    // Past 200 draws (a crowded range), the kernel's pick: claimed too, or tried again.
    for _ in 0..<200 {
        let picked = try bindLoopback(port: 0)
        if HandedOutPorts.shared.claim(picked) { return picked }
    }
    throw POSIXError(.EADDRINUSE)
}

/// The ports ``freeLoopbackPort()`` has returned in this process.
private final class HandedOutPorts: @unchecked Sendable {
    static let shared = HandedOutPorts()
    private let lock = NSLock()
    private var ports: Set<Int> = []

    /// Whether `port` was not handed out before; it counts as handed out from now on.
    func claim(_ port: Int) -> Bool {
        lock.withLock { ports.insert(port).inserted }
    }
}

/// Binds a TCP socket to `port` on 127.0.0.1 (0: the kernel picks), closes it, and returns the port.
private func bindLoopback(port: Int) throws -> Int {
    // Glibc imports SOCK_STREAM as an enum case, Darwin as an Int32.
    #if canImport(Glibc)
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw POSIXError(.EMFILE) }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}
