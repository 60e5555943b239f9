import ActionJournal
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A tmpfs of a few megabytes mounted for one test, so that a journal meets a full disk for
/// real; unmounted by ``unmount()`` (and at the latest when it is released).
///
/// Mounting needs Linux and the right to mount (root, or `CAP_SYS_ADMIN`): a test that needs
/// it is enabled when ``canMount`` holds or `ACTIONBUS_REQUIRE_TMPFS` is set, so that where it
/// must run (`scripts/test.sh`) it fails instead of skipping.
package final class SmallFileSystem: @unchecked Sendable {
    /// Where it is mounted.
    package let path: String
    private var isMounted = true

    /// Whether a tmpfs can be mounted here: tried once, in a directory of its own.
    package static let canMount: Bool = {
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("actionbus-tmpfs-probe-\(UUID().uuidString)")
        guard let fileSystem = try? SmallFileSystem(at: probe, bytes: 1 << 20) else { return false }
        fileSystem.unmount()
        return true
    }()

    /// Whether the environment says the tests that mount must run (`ACTIONBUS_REQUIRE_TMPFS=1`).
    package static var isRequired: Bool { ProcessInfo.processInfo.environment["ACTIONBUS_REQUIRE_TMPFS"] == "1" }

    /// Mounts a tmpfs of `bytes` at `directory` (created if missing).
    package init(at directory: URL, bytes: Int) throws {
        path = directory.path
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        #if os(Linux)
        guard mount("tmpfs", path, "tmpfs", 0, "size=\(bytes)") == 0 else {
            throw FixtureError(description: "cannot mount a tmpfs at \(path): \(String(cString: strerror(errno))) (mounting needs root)")
        }
        #else
        throw FixtureError(description: "a tmpfs is mounted on Linux only")
        #endif
    }

    deinit { unmount() }

    /// Its free bytes, measured as the coordinator measures them.
    package var freeBytes: Int {
        FileSystemSpace.availableBytes(at: path) ?? 0
    }

    /// Writes the file `name` (or adds to it) until at most `bytes` are left free, or none.
    package func fill(leaving bytes: Int, name: String = "filler") throws {
        let file = (path as NSString).appendingPathComponent(name)
        if !FileManager.default.fileExists(atPath: file) { _ = FileManager.default.createFile(atPath: file, contents: nil) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        defer { try? handle.close() }
        try handle.seekToEnd()
        let page = Data(repeating: 0x2E, count: 4096)
        while freeBytes > bytes {
            do {
                try handle.write(contentsOf: page)
            } catch {
                return  // Full.
            }
        }
    }

    /// Removes the file `name`, freeing what it took.
    package func remove(_ name: String = "filler") throws {
        try FileManager.default.removeItem(atPath: (path as NSString).appendingPathComponent(name))
    }

    /// Unmounts it (lazily: a process killed a moment ago may still hold a file there).
    package func unmount() {
        guard isMounted else { return }
        isMounted = false
        #if os(Linux)
        _ = umount2(path, Int32(MNT_DETACH))
        #endif
        try? FileManager.default.removeItem(atPath: path)
    }
}
