#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why the journal could not be opened, read or written.
package struct JournalError: Error, CustomStringConvertible, Sendable {
    /// What failed, with the path and the system's reason.
    package let description: String

    init(_ description: String) { self.description = description }

    /// An error for a failed system call, with its errno text.
    static func system(_ what: String, path: String, errno code: Int32) -> JournalError {
        JournalError("\(what) \(path): \(String(cString: strerror(code))) (errno \(code))")
    }
}
