import Foundation
import Locking

/// Writes one line to standard output at once (no buffering), so pipes see it immediately.
func printLine(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

/// Writes one line to standard error.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// Lines for standard output, written in large chunks.
struct OutputBuffer {
    private var bytes: [UInt8] = []
    private let chunk = 64 << 10

    /// Whether a chunk is ready to be written (the caller flushes, after clearing a progress bar).
    var isFull: Bool { bytes.count >= chunk }

    /// Whether it holds nothing to write.
    var isEmpty: Bool { bytes.isEmpty }

    mutating func append(_ line: String) {
        bytes.append(contentsOf: line.utf8)
        bytes.append(0x0A)
    }

    mutating func append(_ line: [UInt8]) {
        bytes.append(contentsOf: line)
        bytes.append(0x0A)
    }

    mutating func flush() {
        guard !bytes.isEmpty else { return }
        FileHandle.standardOutput.write(Data(bytes))
        bytes.removeAll(keepingCapacity: true)
    }
}

/// Lines for standard output from a stream (`actionbus subscribe`): gathered and written in
/// chunks, each line at most `delay` after it was printed.
///
/// A subscriber to a busy stream printed each outcome with its own `write`, 11 µs of CPU an
/// outcome, which made ten subscribers the bus's bottleneck; gathered, a quiet stream's lines
/// still show at once to the eye. Lines are written under the lock, so in order.
final class StreamedLines: Sendable {
    private struct State {
        var buffer = OutputBuffer()
        var flushScheduled = false
    }

    private let state = Locked(State())
    private let delay: Duration

    init(delay: Duration = .milliseconds(20)) {
        self.delay = delay
    }

    func append(_ line: String) {
        append(Array(line.utf8))
    }

    func append(_ line: [UInt8]) {
        let mustSchedule = state.withLock { state -> Bool in
            state.buffer.append(line)
            if state.buffer.isFull {
                state.buffer.flush()
                return false
            }
            defer { state.flushScheduled = true }
            return !state.flushScheduled
        }
        guard mustSchedule else { return }
        Task { [self, delay] in
            try? await Task.sleep(for: delay)
            flush()
        }
    }

    /// Writes what is gathered now (before the process ends, and when `delay` has passed).
    func flush() {
        state.withLock { state in
            state.flushScheduled = false
            state.buffer.flush()
        }
    }
}
