/// What an ``IDTable`` holds: an object that carries its id's bytes and their tag.
protocol IDKeyed: AnyObject {
    /// ``IDTable/tag(of:)`` of its id, computed once.
    var idTag: UInt32 { get }
    /// Whether its id is `bytes`.
    func hasID(_ bytes: UnsafeRawBufferPointer) -> Bool
    /// Calls `body` with its id's bytes.
    func withIDBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result
}
