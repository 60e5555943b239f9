import Dispatch
import HeapModule
import Locking

/// One timer for every perform's deadline, instead of a `DispatchQueue.asyncAfter` per perform.
///
/// Deadlines are kept in buckets of one millisecond under a lock, with a heap of the buckets'
/// times and a single dispatch timer armed for the earliest one. Scheduling appends to its
/// bucket's slots (plus a heap push for a new bucket); a perform that completes empties its
/// slot at once, so nothing it holds (its input, its completion) outlives it. Emptied buckets'
/// storage is reused, so a steady stream of performs allocates no bucket storage. Sessions
/// share ``shared`` unless their configuration names another.
public final class ActionDeadlineTimer: Sendable {
    /// Identifies a scheduled deadline, to cancel it.
    public struct Token: Sendable, Hashable {
        fileprivate let bucket: Int64
        fileprivate let serial: UInt64
        /// Its slot in the bucket.
        fileprivate let index: Int
    }

    /// One deadline's place in its bucket. A struct, not a tuple: an array of tuples holding a
    /// closure stores it behind a reabstraction thunk, one allocation per deadline.
    private struct Slot {
        let serial: UInt64
        var fire: (@Sendable () -> Void)?
    }

    /// The deadlines of one millisecond, in the order they were scheduled.
    private struct Bucket {
        /// A cancelled deadline leaves its slot empty; the serial tells a slot's current
        /// deadline from one cancelled before the bucket emptied and filled again.
        var slots: [Slot]
        var live = 0
    }

    private struct State {
        var buckets: [Int64: Bucket] = [:]
        /// Storage of emptied buckets, for the next new ones.
        var spareSlots: [[Slot]] = []
        /// Bucket times (milliseconds since `origin`), earliest first, one entry per bucket; a
        /// bucket emptied by cancellations stays (empty) until its time comes.
        var times = Heap<Int64>()
        var nextSerial: UInt64 = 0
        var armedBucket: Int64?
        var count = 0

        /// Keeps an emptied bucket's storage for the next new bucket, when it is not huge; with
        /// the pool full, in place of a smaller one. The pool's arrays so keep the capacity of
        /// the busiest milliseconds: a bucket that outgrew its array doubled it, and a large
        /// step made glibc consolidate its free chunks.
        mutating func keepSpare(_ slots: consuming [Slot]) {
            guard slots.capacity <= 4_096 else { return }
            slots.removeAll(keepingCapacity: true)
            if spareSlots.count < 16 {
                spareSlots.append(slots)
            } else if let smallest = spareSlots.indices.min(by: { spareSlots[$0].capacity < spareSlots[$1].capacity }),
                      spareSlots[smallest].capacity < slots.capacity {
                spareSlots[smallest] = slots
            }
        }
    }

    /// The timer sessions use by default.
    public static let shared = ActionDeadlineTimer(label: "ActionCore.deadlines")

    private let engine: Engine

    /// Creates a timer whose deadlines fire on a serial queue of its own.
    public init(label: String) {
        engine = Engine(label: label)
    }

    deinit { engine.stop() }

    /// How many deadlines are scheduled and not yet fired or cancelled.
    public var scheduledCount: Int { engine.scheduledCount }

    /// Runs `fire` once `deadline` has passed, unless cancelled first.
    public func schedule(at deadline: ContinuousClock.Instant, _ fire: @escaping @Sendable () -> Void) -> Token {
        engine.schedule(at: deadline, fire)
    }

    /// Forgets a deadline that has not fired; does nothing for one that fired or was cancelled.
    public func cancel(_ token: Token) {
        engine.cancel(token)
    }

    /// The timer's state, its queue and its dispatch source. Apart from the timer, so that the
    /// source's handler need not hold the timer weakly: a weak reference gives an object a side
    /// table, and every retain and release of it (each perform's run holds the shared timer)
    /// then takes the runtime's slow path.
    private final class Engine: Sendable {
        private let origin = ContinuousClock.now
        private let state = Locked(State())
        private let queue: DispatchQueue
        /// Only re-armed under the state's lock (a dispatch source is safe to use from any thread,
        /// but not declared `Sendable`).
        private nonisolated(unsafe) let source: any DispatchSourceTimer

        init(label: String) {
            queue = DispatchQueue(label: label)
            source = DispatchSource.makeTimerSource(queue: queue)
            // Held strongly, until the timer's deinit cancels the source (which releases it).
            source.setEventHandler { [engine = self] in engine.fireDue() }
            source.activate()
        }

        func stop() { source.cancel() }

        var scheduledCount: Int { state.withLock { $0.count } }

        func schedule(at deadline: ContinuousClock.Instant, _ fire: @escaping @Sendable () -> Void) -> Token {
            // Rounded up: a deadline never fires early. Past a century there is nothing to wait for
            // (and the milliseconds would overflow): such a deadline never fires.
            let bucket = (deadline - origin).millisecondsRoundedUp
            guard bucket < 3_200_000_000_000 else { return Token(bucket: .max, serial: 0, index: -1) }
            return state.withLock { state in
                state.nextSerial += 1
                let serial = state.nextSerial
                let token: Token
                // In place through the values by index, not `buckets[bucket]!.slots.append`: the
                // dictionary's `modify` accessor heap-allocated its coroutine frames.
                if let index = state.buckets.index(forKey: bucket) {
                    token = Token(bucket: bucket, serial: serial, index: state.buckets.values[index].slots.count)
                    state.buckets.values[index].slots.append(Slot(serial: serial, fire: fire))
                    state.buckets.values[index].live += 1
                } else {
                    var slots = state.spareSlots.popLast() ?? []
                    slots.append(Slot(serial: serial, fire: fire))
                    state.buckets[bucket] = Bucket(slots: slots, live: 1)
                    state.times.insert(bucket)
                    token = Token(bucket: bucket, serial: serial, index: 0)
                }
                state.count += 1
                // Re-armed under the lock, so two schedules racing cannot leave the later time armed.
                if state.armedBucket.map({ bucket < $0 }) ?? true {
                    state.armedBucket = bucket
                    arm(bucket)
                }
                return token
            }
        }

        func cancel(_ token: Token) {
            state.withLock { state in
                guard let index = state.buckets.index(forKey: token.bucket),
                      token.index < state.buckets.values[index].slots.count,
                      state.buckets.values[index].slots[token.index].serial == token.serial,
                      state.buckets.values[index].slots[token.index].fire != nil else { return }
                state.buckets.values[index].slots[token.index].fire = nil
                state.buckets.values[index].live -= 1
                state.count -= 1
                // Kept, without storage, until its time: its heap entry is then the only one for it.
                if state.buckets.values[index].live == 0 {
                    let emptied = state.buckets.values[index].slots
                    state.buckets.values[index].slots = []
                    state.keepSpare(consume emptied)
                }
            }
        }

        private func arm(_ bucket: Int64) {
            let delay = origin + .milliseconds(bucket) - ContinuousClock.now
            source.schedule(deadline: .now() + delay.dispatchInterval, leeway: .milliseconds(1))
        }

        private func fireDue() {
            let now = (ContinuousClock.now - origin).millisecondsRoundedDown
            var due: [Slot] = []
            state.withLock { state in
                while let earliest = state.times.min, earliest <= now {
                    state.times.removeMin()
                    if var fired = state.buckets.removeValue(forKey: earliest) {
                        due.append(contentsOf: fired.slots)
                        state.count -= fired.live
                        let emptied = fired.slots
                        fired.slots = []
                        state.keepSpare(consume emptied)
                    }
                }
                state.armedBucket = state.times.min
                if let next = state.armedBucket { arm(next) }
            }
            // Outside the lock (a handler may schedule or cancel), and each on its own: a slow
            // handler (a user's onCancel) must not hold up every other deadline.
            for slot in due {
                if let fire = slot.fire { DispatchQueue.global().async(execute: fire) }
            }
        }
    }
}
