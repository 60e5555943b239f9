/// The endpoints a coordinator actually bound (with the ports the system chose for `*`).
public struct CoordinatorEndpoints: Sendable, Hashable {
    /// The clients ROUTER.
    public var clients: String
    /// The workers ROUTER.
    public var workers: String
    /// The outcomes XPUB.
    public var outcomes: String
}
