import CZeroMQ
import Dispatch
import Foundation
import Locking
import Synchronization

/// The owner of an ``IOLoop``'s sockets, living on the loop's thread.
public protocol IOLoopDriver: AnyObject, SendableMetatype {
    /// Called on the loop thread when the loop stops, before the runtime closes the sockets it
    /// polls; close any other sockets here.
    func ioLoopWillStop(_ runtime: IOLoopRuntime)
    /// Called on the loop thread after each turn of the loop (what was readable handled, queued
    /// jobs run), before it polls again: the place to send what the turn gathered as one message.
    func ioLoopDidFinishTurn(_ runtime: IOLoopRuntime)
}

extension IOLoopDriver {
    package func ioLoopWillStop(_ runtime: IOLoopRuntime) {}
    package func ioLoopDidFinishTurn(_ runtime: IOLoopRuntime) {}
}

/// A dedicated thread that alone owns a set of ZeroMQ sockets (like czmq's `zactor`).
///
/// The driver is made on the loop thread and never leaves it. Other threads hand it work with
/// ``execute(_:)``: the job is queued under a lock and an eventfd wakes the thread from
/// `zmq_poll`. Action code never touches a socket.
///
/// ```swift
/// let loop = try IOLoop(name: "worker-io", context: context) { runtime in
///     try WorkerDriver(runtime: runtime)
/// }
/// loop.execute { driver, _ in driver.send(outcome) }
/// loop.stop()
/// ```
public final class IOLoop<Driver: IOLoopDriver>: Sendable {
    @usableFromInline typealias Job = @Sendable (Driver, IOLoopRuntime) -> Void

    @usableFromInline
    struct State: Sendable {
        @usableFromInline var jobs: [Job] = []
        @usableFromInline var isSignaled = false
        @usableFromInline var isAccepting = true

        @usableFromInline init() {}
    }

    /// The loop's name, also its thread's name.
    package let name: String
    @usableFromInline let wake: WakeSignal
    @usableFromInline let state = Locked(State())
    /// The loop thread's identity (0 until it starts): an atomic, since every perform from a
    /// completion asks whether it runs on the loop thread, and a lock there cost each one.
    @usableFromInline let loopThread = Atomic<UInt>(0)
    /// The driver and runtime while the loop runs; read and written on the loop thread only.
    @usableFromInline nonisolated(unsafe) var running: (driver: Driver, runtime: IOLoopRuntime)?
    private let exited = DispatchSemaphore(value: 0)

    /// Starts the loop's thread and makes the driver on it.
    ///
    /// - Throws: whatever `makeDriver` throws; the thread has exited by then.
    package convenience init(
        name: String,
        context: ZMQContext,
        makeDriver: @escaping @Sendable (IOLoopRuntime) throws -> Driver
    ) throws {
        try self.init(name: name, context: context) { runtime, _ in try makeDriver(runtime) }
    }

    /// Starts the loop's thread and makes the driver on it, handing the driver the loop itself
    /// so work finishing on other threads can come back to it with ``execute(_:)``.
    ///
    /// - Throws: whatever `makeDriver` throws; the thread has exited by then.
    package init(
        name: String,
        context: ZMQContext,
        makeDriver: @escaping @Sendable (IOLoopRuntime, IOLoop<Driver>) throws -> Driver
    ) throws {
        self.name = name
        self.wake = try WakeSignal()
        let started = DispatchSemaphore(value: 0)
        let setupError = Locked<(any Error)?>(nil)
        let thread = Thread { [self] in
            loopThread.store(Self.currentThread, ordering: .releasing)
            let runtime = IOLoopRuntime(name: name, context: context, wakeDescriptor: wake.fileDescriptor)
            let driver: Driver
            do {
                driver = try makeDriver(runtime, self)
            } catch {
                setupError.withLock { $0 = error }
                loopThread.store(0, ordering: .releasing)
                runtime.closeRegisteredSockets()
                state.withLock { $0.isAccepting = false }
                started.signal()
                exited.signal()
                return
            }
            started.signal()
            run(driver, runtime)
            // A later thread may get the same `pthread_t`: it is not this loop's.
            loopThread.store(0, ordering: .releasing)
            exited.signal()
        }
        thread.name = name
        thread.start()
        started.wait()
        if let error = setupError.withLock({ $0 }) { throw error }
    }

    /// Queues `job` to run on the loop thread with the driver and runtime.
    ///
    /// - Returns: `false` when the loop has stopped and the job will never run.
    ///
    /// Inlinable, as ``executeHereOrQueue(_:)`` is, so that it is specialised for the driver in
    /// the module that calls it: every outcome a worker's actions finish comes back this way.
    @inlinable @discardableResult
    public func execute(_ job: @escaping @Sendable (Driver, IOLoopRuntime) -> Void) -> Bool {
        let (accepted, mustRing) = state.withLock { state -> (Bool, Bool) in
            guard state.isAccepting else { return (false, false) }
            state.jobs.append(job)
            let mustRing = !state.isSignaled
            state.isSignaled = true
            return (true, mustRing)
        }
        if mustRing { wake.ring() }
        return accepted
    }

    /// Runs `job` at once when called on the loop thread (the driver's own code delivering to
    /// itself, such as an outcome that completed synchronously while the driver started the
    /// work), and queues it like ``execute(_:)`` from any other thread: no wake-up is spent on
    /// work that is already where it must run. The job then runs inside the driver's current
    /// call, so the driver must be in a state to take it there.
    @inlinable @discardableResult
    public func executeHereOrQueue(_ job: @escaping @Sendable (Driver, IOLoopRuntime) -> Void) -> Bool {
        if isCurrentThread, let (driver, runtime) = running {
            // Once the loop stops accepting (it is stopping: the driver is failing what it
            // holds), new work is refused here too, not slipped in behind its back.
            guard state.withLock({ $0.isAccepting }) else { return false }
            job(driver, runtime)
            return true
        }
        return execute(job)
    }

    /// Whether the caller runs on this loop's thread.
    @inlinable
    public var isCurrentThread: Bool {
        loopThread.load(ordering: .acquiring) == Self.currentThread
    }

    /// Stops the loop: queued jobs run, the driver closes its sockets, the thread exits.
    ///
    /// Called from another thread it waits for the exit; called on the loop thread it only asks.
    package func stop() {
        let alreadyStopping = state.withLock { state -> Bool in
            defer { state.isAccepting = false }
            return !state.isAccepting
        }
        if !alreadyStopping { wake.ring() }
        guard !isCurrentThread else { return }
        exited.wait()
        // Hand the exit on to any other thread waiting in stop().
        exited.signal()
    }

    /// Stops the loop without blocking a cooperative thread.
    package func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                self.stop()
                continuation.resume()
            }
        }
    }

    /// The calling thread's `pthread_t` as a number: distinct among live threads, never 0.
    @usableFromInline
    static var currentThread: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }

    private func run(_ driver: Driver, _ runtime: IOLoopRuntime) {
        running = (driver, runtime)
        defer { running = nil }
        var batch: [Job] = []
        while true {
            let woken: Bool
            do {
                woken = try runtime.step()
            } catch {
                // Only ETERM reaches here: the context is shutting down under us.
                break
            }
            if woken { runQueuedJobs(driver, runtime, &batch) }
            driver.ioLoopDidFinishTurn(runtime)
            if runtime.isStopRequested { break }
            if !state.withLock({ $0.isAccepting }) {
                runQueuedJobs(driver, runtime, &batch)
                break
            }
        }
        state.withLock { $0.isAccepting = false }
        runQueuedJobs(driver, runtime, &batch)
        driver.ioLoopWillStop(runtime)
        runtime.closeRegisteredSockets()
    }

    private func runQueuedJobs(_ driver: Driver, _ runtime: IOLoopRuntime, _ batch: inout [Job]) {
        wake.drain()
        // Swapping arrays keeps both buffers alive across batches: no allocation per wake-up.
        state.withLock { state in
            state.isSignaled = false
            swap(&state.jobs, &batch)
        }
        for job in batch { job(driver, runtime) }
        batch.removeAll(keepingCapacity: true)
    }
}
