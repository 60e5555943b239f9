/// The output of an action that produces none; encodes as `{}`.
public struct NoOutput: Codable, Sendable, Hashable {
    /// Creates the empty output.
    public init() {}
}
