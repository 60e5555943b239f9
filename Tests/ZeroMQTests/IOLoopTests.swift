import Foundation
import Locking
import Synchronization
import Testing
@testable import ZeroMQ

/// A driver that records what reached it, on the loop thread.
final class RecordingDriver: IOLoopDriver {
    let log: Log
    let pull: Socket
    var stopCalls = 0

    final class Log: Sendable {
        let entries = Locked<[String]>([])
        let jobThreadsOnLoop = Atomic<Int>(0)
        func append(_ entry: String) { entries.withLock { $0.append(entry) } }
        var snapshot: [String] { entries.withLock { $0 } }
    }

    init(runtime: IOLoopRuntime, endpoint: String, log: Log) throws {
        self.log = log
        pull = try runtime.makeSocket(.pull)
        try pull.bind(endpoint)
        runtime.register(pull) { [log] socket in
            while let text = try? socket.receiveString(options: .dontWait) { log.append("message:\(text)") }
        }
    }

    func ioLoopWillStop(_ runtime: IOLoopRuntime) {
        log.append("stopping")
    }
}

@Suite("I/O loop")
struct IOLoopTests {
    @Test func jobsFromManyThreadsRunOnTheLoopThreadInOrderPerSender() throws {
        let context = try ZMQContext()
        let log = RecordingDriver.Log()
        let loop = try IOLoop(name: "test-io", context: context) { runtime in
            try RecordingDriver(runtime: runtime, endpoint: "inproc://loop-\(UUID().uuidString)", log: log)
        }
        let senders = 4, jobsPerSender = 500
        DispatchQueue.concurrentPerform(iterations: senders) { sender in
            for job in 0..<jobsPerSender {
                loop.execute { _, _ in
                    if loop.isCurrentThread { log.jobThreadsOnLoop.add(1, ordering: .relaxed) }
                    log.append("\(sender):\(job)")
                }
            }
        }
        #expect(waitUntil { log.snapshot.count == senders * jobsPerSender })
        #expect(log.jobThreadsOnLoop.load(ordering: .relaxed) == senders * jobsPerSender)
        #expect(!loop.isCurrentThread)
        let entries = log.snapshot
        for sender in 0..<senders {
            let order = entries.filter { $0.hasPrefix("\(sender):") }.map { Int($0.split(separator: ":")[1])! }
            #expect(order == Array(0..<jobsPerSender))
        }
        loop.stop()
    }

    @Test func workHandedToTheLoopFromItsOwnThreadRunsAtOnceAndFromElsewhereIsQueued() throws {
        let context = try ZMQContext()
        let log = RecordingDriver.Log()
        let loop = try IOLoop(name: "test-io", context: context) { runtime in
            try RecordingDriver(runtime: runtime, endpoint: "inproc://loop-\(UUID().uuidString)", log: log)
        }
        loop.execute { _, _ in
            log.append("outer begins")
            // On the loop thread: inside this job, before it ends.
            loop.executeHereOrQueue { _, _ in log.append(loop.isCurrentThread ? "inner on the loop" : "inner elsewhere") }
            log.append("outer ends")
        }
        // From another thread: queued, and still run on the loop thread.
        loop.executeHereOrQueue { _, _ in log.append(loop.isCurrentThread ? "queued on the loop" : "queued elsewhere") }
        #expect(waitUntil { log.snapshot.count == 4 })
        #expect(log.snapshot == ["outer begins", "inner on the loop", "outer ends", "queued on the loop"])
        loop.stop()
        // Stopped: nothing runs, and the caller is told.
        #expect(!loop.executeHereOrQueue { _, _ in log.append("after stop") })
    }

    @Test func registeredSocketsAreServedAndClosedOnStop() throws {
        let context = try ZMQContext()
        let log = RecordingDriver.Log()
        let endpoint = "inproc://loop-\(UUID().uuidString)"
        let loop = try IOLoop(name: "test-io", context: context) { runtime in
            try RecordingDriver(runtime: runtime, endpoint: endpoint, log: log)
        }
        let push = try bounded(Socket(context, type: .push))
        try push.connect(endpoint)
        for index in 0..<10 { try push.send("m\(index)") }
        #expect(waitUntil { log.snapshot.count == 10 })
        #expect(log.snapshot == (0..<10).map { "message:m\($0)" })
        push.close()
        loop.stop()
        #expect(log.snapshot.last == "stopping")
        #expect(context.openSocketCount == 0)
        #expect(loop.execute { _, _ in } == false)
    }

    @Test func timersFireOnTheLoopThread() throws {
        let context = try ZMQContext()
        let log = RecordingDriver.Log()
        let loop = try IOLoop(name: "test-io", context: context) { runtime in
            try RecordingDriver(runtime: runtime, endpoint: "inproc://loop-\(UUID().uuidString)", log: log)
        }
        loop.execute { _, runtime in
            runtime.schedule(after: .milliseconds(5), repeating: .milliseconds(5)) {
                log.append("tick")
            }
            let once = runtime.schedule(after: .milliseconds(1)) { log.append("cancelled") }
            runtime.cancel(once)
        }
        #expect(waitUntil { log.snapshot.filter { $0 == "tick" }.count >= 3 })
        loop.stop()
        #expect(!log.snapshot.contains("cancelled"))
    }

    @Test func setupErrorsReachTheCaller() throws {
        let context = try ZMQContext()
        struct SetupFailed: Error {}
        #expect(throws: SetupFailed.self) {
            _ = try IOLoop<RecordingDriver>(name: "failing", context: context) { _ in throw SetupFailed() }
        }
    }

    @Test func stopIsIdempotentAndSafeFromTheLoopThread() async throws {
        let context = try ZMQContext()
        let log = RecordingDriver.Log()
        let loop = try IOLoop(name: "test-io", context: context) { runtime in
            try RecordingDriver(runtime: runtime, endpoint: "inproc://loop-\(UUID().uuidString)", log: log)
        }
        loop.execute { _, _ in loop.stop() }
        await loop.stop()
        await loop.stop()
        #expect(log.snapshot == ["stopping"])
        #expect(context.openSocketCount == 0)
    }
}
