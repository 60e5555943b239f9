#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The free space of the file system a journal lives on, as an unprivileged writer sees it.
package enum FileSystemSpace {
    /// The bytes `path`'s file system still lets an unprivileged process write
    /// (`f_bavail × f_frsize`: the root-reserved blocks do not count, as they would not for a
    /// coordinator that does not run as root); `nil` when `statvfs` fails.
    package static func availableBytes(at path: String) -> Int? {
        var status = statvfs()
        guard statvfs(path, &status) == 0 else { return nil }
        let blocks = UInt64(status.f_bavail), blockBytes = UInt64(status.f_frsize)
        let (bytes, overflow) = blocks.multipliedReportingOverflow(by: blockBytes)
        return overflow ? Int.max : Int(clamping: bytes)
    }
}
