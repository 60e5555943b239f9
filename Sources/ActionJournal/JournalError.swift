#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why the journal could not be opened, read or written.
package struct JournalError: Error, CustomStringConvertible, Sendable {
    /// What failed, with the path and the system's reason.
    package let description: String
    /// The system call's `errno`, when one failed.
    package let systemError: Int32?

    package init(_ description: String, systemError: Int32? = nil) {
        self.description = description
        self.systemError = systemError
    }

    /// Whether the file system had no room (`ENOSPC`, or `EDQUOT` for a quota): freeing space
    /// cures it, where other failures need an operator.
    package var isOutOfSpace: Bool { systemError == ENOSPC || systemError == EDQUOT }

    /// An error for a failed system call, with its errno text.
    package static func system(_ what: String, path: String, errno code: Int32) -> JournalError {
        JournalError("\(what) \(path): \(String(cString: strerror(code))) (errno \(code))", systemError: code)
    }
}
