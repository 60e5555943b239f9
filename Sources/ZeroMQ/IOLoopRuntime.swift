import CZeroMQ

/// Identifies a timer scheduled on an ``IOLoopRuntime``.
package struct IOLoopTimerID: Hashable, Sendable {
    let rawValue: Int
}

/// The loop-thread side of an ``IOLoop``: the sockets it polls and the timers it runs.
///
/// A runtime exists only on its loop's thread and is handed to the driver and to every job;
/// it is not `Sendable`, so sockets registered with it never leave that thread.
public final class IOLoopRuntime {
    private struct Registration {
        let socket: Socket
        let onReadable: (Socket) -> Void
    }

    private struct Timer {
        let id: IOLoopTimerID
        var deadline: ContinuousClock.Instant
        let interval: Duration?
        let body: () -> Void
    }

    /// The context sockets of this loop are made from.
    package let context: ZMQContext
    /// The loop's name, also its thread's name.
    package let name: String

    private let wakeDescriptor: Int32
    private var poller = Poller()
    private var registrations: [Registration] = []
    private var timers: [Timer] = []
    private var nextTimerID = 0
    private var generation = 0
    private(set) var isStopRequested = false

    init(name: String, context: ZMQContext, wakeDescriptor: Int32) {
        self.name = name
        self.context = context
        self.wakeDescriptor = wakeDescriptor
        poller.add(fileDescriptor: wakeDescriptor)
    }

    /// Makes a socket owned by this loop's thread.
    package func makeSocket(_ type: SocketType) throws -> Socket {
        try Socket(context, type: type)
    }

    /// Polls `socket` and calls `onReadable` on the loop thread whenever it has input.
    ///
    /// Polling is level-triggered: the handler may read a bounded batch and return; it is
    /// called again while input remains. The runtime closes registered sockets when it stops.
    package func register(_ socket: Socket, onReadable: @escaping (Socket) -> Void) {
        poller.add(socket)
        registrations.append(Registration(socket: socket, onReadable: onReadable))
        generation += 1
    }

    /// Stops polling `socket` (it stays open).
    package func unregister(_ socket: Socket) {
        guard let index = registrations.firstIndex(where: { $0.socket === socket }) else { return }
        registrations.remove(at: index)
        poller.remove(at: index + 1)
        generation += 1
    }

    /// Runs `body` on the loop thread after `delay`, then every `interval` if one is given.
    @discardableResult
    package func schedule(
        after delay: Duration,
        repeating interval: Duration? = nil,
        _ body: @escaping () -> Void
    ) -> IOLoopTimerID {
        nextTimerID += 1
        let id = IOLoopTimerID(rawValue: nextTimerID)
        timers.append(Timer(id: id, deadline: .now + delay, interval: interval, body: body))
        return id
    }

    /// Cancels a timer; cancelling a fired one-shot timer does nothing.
    package func cancel(_ timer: IOLoopTimerID) {
        timers.removeAll { $0.id == timer }
    }

    /// Asks the loop to stop after the current step.
    package func stop() {
        isStopRequested = true
    }

    /// Waits for input or the next timer, then runs whatever is due.
    ///
    /// - Returns: whether the wake-up descriptor was readable (jobs may be queued).
    func step() throws -> Bool {
        let timeout = millisecondsUntilNextTimer()
        do {
            try poller.poll(timeoutMilliseconds: timeout)
        } catch let error as ZMQError where error.code == .interrupted {
            return false
        }
        let woken = poller.isReadable(0)
        let observed = generation
        var index = 1
        while index < poller.count, !isStopRequested {
            if poller.isReadable(index) {
                let registration = registrations[index - 1]
                registration.onReadable(registration.socket)
                // A handler that changed the registrations invalidated the poll results; the
                // next poll reports whatever is still ready.
                if generation != observed { break }
            }
            index += 1
        }
        runDueTimers()
        return woken
    }

    /// Closes every registered socket; called once the loop has stopped.
    func closeRegisteredSockets() {
        for registration in registrations { registration.socket.close() }
        registrations.removeAll()
        poller.removeAll()
        timers.removeAll()
    }

    private func millisecondsUntilNextTimer() -> Int {
        guard let next = timers.lazy.map(\.deadline).min() else { return -1 }
        let now = ContinuousClock.now
        return next <= now ? 0 : (next - now).roundedUpMilliseconds
    }

    private func runDueTimers() {
        guard !timers.isEmpty else { return }
        let now = ContinuousClock.now
        let due = timers.filter { $0.deadline <= now }
        guard !due.isEmpty else { return }
        for timer in due {
            if let interval = timer.interval, let index = timers.firstIndex(where: { $0.id == timer.id }) {
                // Re-arm from now rather than from the old deadline, so a stall never causes a burst.
                timers[index].deadline = now + interval
            } else {
                timers.removeAll { $0.id == timer.id }
            }
        }
        for timer in due where !isStopRequested {
            timer.body()
        }
    }
}
