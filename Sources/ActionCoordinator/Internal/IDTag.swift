/// The 32-bit tag an ``IDTable`` keys an id by: `Hasher`'s hash of its bytes (seeded per
/// process, so ids a client chooses cannot be made to collide), never 0.
enum IDTag {
    static func of(_ id: UnsafeRawBufferPointer) -> UInt32 {
        var hasher = Hasher()
        hasher.combine(bytes: id)
        let hash = UInt32(truncatingIfNeeded: hasher.finalize())
        return hash == 0 ? 1 : hash
    }

    static func of(_ id: String) -> UInt32 { withBytes(of: id) { of($0) } }

    /// Calls `body` with the UTF-8 bytes of `id`, in place when it is stored contiguously.
    static func withBytes<Result>(of id: String, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        if let result = try id.utf8.withContiguousStorageIfAvailable({ try body(UnsafeRawBufferPointer($0)) }) { return result }
        var id = id
        return try id.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
    }
}
