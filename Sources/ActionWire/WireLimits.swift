/// Size limits the codec enforces while decoding.
public struct WireLimits: Sendable, Hashable {
    /// The longest name (action, session, request id, worker, content type, error code), in bytes.
    public var maxNameBytes: Int = 255
    /// The longest body (action input or output, error message, report), in bytes.
    public var maxBodyBytes: Int = 1 << 20
    /// The most actions one worker may register.
    public var maxActionsPerWorker: Int = 4096
    /// The most request ids one ACCEPTED or ACK carries.
    public var maxRequestIDsPerMessage: Int = 1024
    /// The most records (requests or outcomes) one PERFORM, REQUEST, RESULT or OUTCOME carries.
    public var maxRecordsPerMessage: Int = 1024

    /// The default limits: 255-byte names, 1 MiB bodies.
    public init() {}

    /// Limits with a body cap of `maxBodyBytes`.
    public init(maxBodyBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
    }
}
