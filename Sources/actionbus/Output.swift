import Foundation

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
