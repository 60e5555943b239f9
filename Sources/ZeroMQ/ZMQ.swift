import CZeroMQ

/// Library-wide facts about the libzmq this process is linked with.
package enum ZMQ {
    /// The linked libzmq version, such as `(4, 3, 4)`.
    package static var version: (major: Int, minor: Int, patch: Int) {
        var major: Int32 = 0, minor: Int32 = 0, patch: Int32 = 0
        zmq_version(&major, &minor, &patch)
        return (Int(major), Int(minor), Int(patch))
    }

    /// The version as text, such as `"4.3.4"`.
    package static var versionString: String {
        let v = version
        return "\(v.major).\(v.minor).\(v.patch)"
    }

    /// Whether libzmq was built with a capability: `"curve"`, `"ipc"`, `"draft"`, ...
    package static func has(_ capability: String) -> Bool {
        zmq_has(capability) != 0
    }
}
