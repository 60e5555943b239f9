/// Pending requests by request id: an open-addressing hash table of references, keyed by the
/// id bytes each request holds.
///
/// A dictionary keyed by `String` costs a queued request a key of its own (16 bytes, plus a
/// heap copy of any id of 16 bytes or more) besides the 24-byte slot; this table costs 12 bytes
/// a slot (a reference and a 32-bit tag of the id's hash) and no key. The tag decides the home
/// slot and settles almost every probe without reading the request; the hash is `Hasher`'s,
/// seeded per process, so ids chosen by a client cannot be made to collide. Linear probing with
/// backward-shift deletion: no tombstones, so a table that churns stays as fast as a fresh one.
struct RequestTable {
    /// 0 marks an empty slot; a tag is never 0.
    private var tags: [UInt32]
    private var entries: [PendingRequest?]
    private(set) var count = 0
    private var mask: Int

    /// The slots a new table has.
    private static let minimumCapacity = 8
    /// The slots a table keeps however empty it gets (12 bytes each).
    private static let keptCapacity = 1024

    init() {
        tags = Array(repeating: 0, count: Self.minimumCapacity)
        entries = Array(repeating: nil, count: Self.minimumCapacity)
        mask = Self.minimumCapacity - 1
    }

    var isEmpty: Bool { count == 0 }

    /// Every request in the table, in no particular order.
    var requests: [PendingRequest] { entries.compactMap { $0 } }

    static func tag(of id: UnsafeRawBufferPointer) -> UInt32 {
        var hasher = Hasher()
        hasher.combine(bytes: id)
        let hash = UInt32(truncatingIfNeeded: hasher.finalize())
        return hash == 0 ? 1 : hash
    }

    static func tag(of id: String) -> UInt32 { withBytes(of: id, tag(of:)) }

    private static func withBytes<Result>(of id: String, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        if let result = id.utf8.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) { return result }
        var id = id
        return id.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }

    /// The slot holding the request with id `id`, if any.
    private func slot(of id: UnsafeRawBufferPointer, tag: UInt32) -> Int? {
        var index = Int(tag) & mask
        while true {
            let found = tags[index]
            if found == 0 { return nil }
            if found == tag, entries[index].unsafelyUnwrapped.hasRequestID(id) { return index }
            index = (index + 1) & mask
        }
    }

    /// The slot holding `request` itself, if any: found by reference, so no id is compared.
    private func slot(of request: PendingRequest) -> Int? {
        let tag = request.idTag
        var index = Int(tag) & mask
        while true {
            let found = tags[index]
            if found == 0 { return nil }
            if found == tag, entries[index] === request { return index }
            index = (index + 1) & mask
        }
    }

    subscript(id: String) -> PendingRequest? {
        Self.withBytes(of: id) { bytes in slot(of: bytes, tag: Self.tag(of: bytes)).map { entries[$0].unsafelyUnwrapped } }
    }

    func contains(_ id: String) -> Bool { self[id] != nil }

    /// Whether a request with the id of `request` (it, or another) is in the table.
    func containsID(of request: PendingRequest) -> Bool {
        request.withRequestIDBytes { bytes in slot(of: bytes, tag: request.idTag) != nil }
    }

    func contains(where predicate: (PendingRequest) -> Bool) -> Bool {
        entries.contains { $0.map(predicate) ?? false }
    }

    /// Adds `request`; no request with its id may be in the table.
    mutating func insert(_ request: PendingRequest) {
        if (count + 1) * 4 > tags.count * 3 { resize(to: tags.count * 2) }
        place(request, tag: request.idTag)
        count += 1
    }

    private mutating func place(_ request: PendingRequest, tag: UInt32) {
        var index = Int(tag) & mask
        while tags[index] != 0 { index = (index + 1) & mask }
        tags[index] = tag
        entries[index] = request
    }

    /// Takes out and returns the request with id `id`, if any.
    @discardableResult
    mutating func remove(_ id: String) -> PendingRequest? {
        guard let index = Self.withBytes(of: id, { bytes in slot(of: bytes, tag: Self.tag(of: bytes)) }) else { return nil }
        return remove(at: index)
    }

    /// Takes `request` itself out, if it is in the table (not another request with its id).
    @discardableResult
    mutating func remove(_ request: PendingRequest) -> Bool {
        guard let index = slot(of: request) else { return false }
        remove(at: index)
        return true
    }

    @discardableResult
    private mutating func remove(at index: Int) -> PendingRequest {
        let removed = entries[index].unsafelyUnwrapped
        // Backward shift: each later entry of the run moves into the hole when its home slot
        // does not lie (cyclically) between the hole and where it sits.
        var hole = index
        var next = (index + 1) & mask
        while tags[next] != 0 {
            let home = Int(tags[next]) & mask
            let stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
            if !stays {
                tags[hole] = tags[next]
                entries[hole] = entries[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        tags[hole] = 0
        entries[hole] = nil
        count -= 1
        // A table a burst grew gives its slots back once it is mostly empty; one no larger than
        // `keptCapacity` keeps them, so a worker's in-flight set that fills and empties with
        // every batch does not regrow each time.
        if tags.count > Self.keptCapacity, count * 8 < tags.count { resize(to: tags.count / 4) }
        return removed
    }

    private mutating func resize(to capacity: Int) {
        let oldTags = tags
        let oldEntries = entries
        tags = Array(repeating: 0, count: capacity)
        entries = Array(repeating: nil, count: capacity)
        mask = capacity - 1
        for index in oldTags.indices where oldTags[index] != 0 {
            place(oldEntries[index].unsafelyUnwrapped, tag: oldTags[index])
        }
    }
}
