/// Size limits the codec enforces while decoding.
package struct WireLimits: Sendable, Hashable {
    /// The longest name (action, session, request id, worker, content type, error code), in bytes.
    package var maxNameBytes: Int = 255
    /// The longest body (action input or output, error message, report), in bytes.
    package var maxBodyBytes: Int = 1 << 20
    /// The most actions one worker may register.
    package var maxActionsPerWorker: Int = 4096
    /// The most request ids one ACCEPTED or ACK carries.
    package var maxRequestIDsPerMessage: Int = 1024
    /// The most records (requests or outcomes) one PERFORM, REQUEST, RESULT or OUTCOME carries.
    package var maxRecordsPerMessage: Int = 1024

    /// The default limits: 255-byte names, 1 MiB bodies.
    package init() {}

    /// Limits with a body cap of `maxBodyBytes`.
    package init(maxBodyBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
    }
}
