import ActionBusTestSupport
import ActionWire
import Foundation
import Testing
import ZeroMQ

/// 100,000 random multipart messages at each coordinator socket, plus a flood of short-lived
/// unknown identities: the coordinator keeps serving and its memory stays bounded.
@Suite("Coordinator garbage soak", .serialized, .timeLimit(.minutes(3)))
struct GarbageSoakTests {
    static func residentKilobytes(_ pid: Int32) -> Int {
        #if os(Linux)
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        #else
        // No /proc on Darwin: the resident size from libproc.
        var info = proc_taskinfo()
        let size = Int32(MemoryLayout<proc_taskinfo>.size)
        guard proc_pidinfo(pid, PROC_PIDTASKINFO, 0, &info, size) == size else { return 0 }
        return Int(info.pti_resident_size / 1024)
        #endif
    }

    static func randomMessage(_ random: inout SeededRandom) -> Multipart {
        var message = Multipart()
        for _ in 0..<Int.random(in: 1...6, using: &random) {
            message.append((0..<Int.random(in: 0...48, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        }
        if Bool.random(using: &random) {
            // Half of them look like ActionBus messages, to reach deeper into the decoders.
            var forged = Multipart()
            let commands: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x21, 0x22, 0x23, 0x25]
            forged.append([0x41, 0x42, 0x55, 0x53, WireHeader.version, commands.randomElement(using: &random)!])
            for index in 0..<message.count { forged.append(message[index]) }
            return forged
        }
        return message
    }

    @Test(.seeded) func randomFramesOnEverySocketLeaveTheCoordinatorServing() throws {
        var random = SeededRandom()
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator()
        try bus.startWorker("w1", coordinator: coordinator)
        let warmup = try bus.perform("Echo.say", ["--input", #"{"text":"warm"}"#])
        #expect(warmup.process.terminationStatus == 0)
        let before = Self.residentKilobytes(coordinator.pid)

        let context = try ZMQContext()
        for (type, endpoint) in [(SocketType.dealer, bus.clients), (.dealer, bus.workers), (.xsub, bus.outcomes)] {
            let socket = try Socket(context, type: type)
            try socket.setOption(.sendTimeout, 10_000)
            try socket.setOption(.sendHighWaterMark, 1000)
            try socket.connect(endpoint)
            for _ in 0..<100_000 { try socket.send(Self.randomMessage(&random)) }
            socket.close()
        }
        // Unknown identities: connections that each send a little garbage and vanish.
        for _ in 0..<300 {
            let socket = try Socket(context, type: .dealer)
            try socket.setOption(.sendTimeout, 10_000)
            try socket.connect(Bool.random(using: &random) ? bus.clients : bus.workers)
            for _ in 0..<5 { try socket.send(Self.randomMessage(&random)) }
            socket.close()
        }

        // Still serving, and a valid request arrives after all the garbage queued before it.
        let ok = try bus.perform("Echo.say", ["--input", #"{"text":"survived"}"#, "--json"], timeout: .seconds(90))
        #expect(ok.process.terminationStatus == 0, "\(ok.stderr)")
        #expect(try OutcomeLine.parse(ok.stdoutLines).first?.output?["text"]?.string == "survived")
        #expect(coordinator.process.isRunning)
        let after = Self.residentKilobytes(coordinator.pid)
        #expect(before > 0)
        // Bounded: 300,000 messages dropped must not leave their bytes behind.
        #expect(after - before < 64 * 1024, "resident memory grew from \(before) kB to \(after) kB")
    }
}
