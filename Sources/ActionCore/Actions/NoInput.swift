/// The input of an action that takes none; encodes as `{}` and decodes from any JSON object.
public struct NoInput: Codable, Sendable, Hashable {
    /// Creates the empty input.
    public init() {}
}
