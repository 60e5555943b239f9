/// Objects by request id: an open-addressing hash table of references, keyed by the id bytes
/// each object holds (pending requests, kept outcomes).
///
/// A dictionary keyed by `String` costs each entry a key of its own (16 bytes, plus a heap copy
/// of any id of 16 bytes or more) besides the 24-byte slot; this table costs 12 bytes a slot (a
/// reference and a 32-bit tag of the id's hash) and no key. The tag decides the home slot and
/// settles almost every probe without reading the object; an object keeps its tag, so finding
/// or removing it again hashes nothing. The hash is `Hasher`'s, seeded per process, so ids
/// chosen by a client cannot be made to collide. Linear probing with backward-shift deletion:
/// no tombstones, so a table that churns stays as fast as a fresh one.
struct IDTable<Element: IDKeyed> {
    /// 0 marks an empty slot; a tag is never 0.
    private var tags: [UInt32]
    private var entries: [Element?]
    private(set) var count = 0
    private var mask: Int

    /// The slots a new table has.
    private static var minimumCapacity: Int { 8 }
    /// The slots a table keeps however empty it gets (12 bytes each, so 192 KiB at most).
    /// Large enough for what fills and empties at full load between two of a client's ACKs
    /// (a few thousand outcomes owed), so those tables do not shrink and regrow, copying every
    /// entry, with each ACK: that churn was 1 to 2 % of the coordinator's CPU.
    private static var keptCapacity: Int { 16_384 }

    init() {
        tags = Array(repeating: 0, count: Self.minimumCapacity)
        entries = Array(repeating: nil, count: Self.minimumCapacity)
        mask = Self.minimumCapacity - 1
    }

    var isEmpty: Bool { count == 0 }

    /// Every element in the table, in no particular order.
    var elements: [Element] { entries.compactMap { $0 } }

    static func tag(of id: UnsafeRawBufferPointer) -> UInt32 { IDTag.of(id) }

    static func tag(of id: String) -> UInt32 { IDTag.of(id) }

    private static func withBytes<Result>(of id: String, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        IDTag.withBytes(of: id, body)
    }

    /// The slot holding the element with id `id`, if any.
    private func slot(of id: UnsafeRawBufferPointer, tag: UInt32) -> Int? {
        var index = Int(tag) & mask
        while true {
            let found = tags[index]
            if found == 0 { return nil }
            if found == tag, entries[index].unsafelyUnwrapped.hasID(id) { return index }
            index = (index + 1) & mask
        }
    }

    /// The slot holding `element` itself, if any: found by reference, so no id is compared.
    private func slot(of element: Element) -> Int? {
        let tag = element.idTag
        var index = Int(tag) & mask
        while true {
            let found = tags[index]
            if found == 0 { return nil }
            if found == tag, entries[index] === element { return index }
            index = (index + 1) & mask
        }
    }

    subscript(id: String) -> Element? {
        self[id, tag: Self.tag(of: id)]
    }

    /// The element with id `id`, whose tag (``tag(of:)``) the caller already has.
    subscript(id: String, tag tag: UInt32) -> Element? {
        Self.withBytes(of: id) { bytes in slot(of: bytes, tag: tag).map { entries[$0].unsafelyUnwrapped } }
    }

    /// The element whose id is `bytes`.
    subscript(idBytes bytes: UnsafeRawBufferPointer) -> Element? {
        slot(of: bytes, tag: Self.tag(of: bytes)).map { entries[$0].unsafelyUnwrapped }
    }

    func contains(_ id: String) -> Bool { self[id] != nil }

    /// Whether an element with the id of `element` (it, or another) is in the table.
    func containsID(of element: Element) -> Bool {
        element.withIDBytes { bytes in slot(of: bytes, tag: element.idTag) != nil }
    }

    func contains(where predicate: (Element) -> Bool) -> Bool {
        entries.contains { $0.map(predicate) ?? false }
    }

    /// Adds `element`; no element with its id may be in the table.
    mutating func insert(_ element: Element) {
        if (count + 1) * 4 > tags.count * 3 { resize(to: tags.count * 2) }
        place(element, tag: element.idTag)
        count += 1
    }

    /// Adds `element` in place of the element with its id, returned, if there is one.
    mutating func replace(_ element: Element) -> Element? {
        if let index = element.withIDBytes({ slot(of: $0, tag: element.idTag) }) {
            let replaced = entries[index].unsafelyUnwrapped
            entries[index] = element
            return replaced
        }
        insert(element)
        return nil
    }

    private mutating func place(_ element: Element, tag: UInt32) {
        var index = Int(tag) & mask
        while tags[index] != 0 { index = (index + 1) & mask }
        tags[index] = tag
        entries[index] = element
    }

    /// Takes out and returns the element with id `id`, if any.
    @discardableResult
    mutating func remove(_ id: String) -> Element? {
        guard let index = Self.withBytes(of: id, { bytes in slot(of: bytes, tag: Self.tag(of: bytes)) }) else { return nil }
        return remove(at: index)
    }

    /// Takes `element` itself out, if it is in the table (not another element with its id).
    @discardableResult
    mutating func remove(_ element: Element) -> Bool {
        guard let index = slot(of: element) else { return false }
        remove(at: index)
        return true
    }

    /// Takes out and returns the element whose id is `bytes`, if any: one probe, where finding
    /// it and then removing it by reference is two.
    mutating func remove(idBytes bytes: UnsafeRawBufferPointer, if shouldRemove: (Element) -> Bool) -> Element? {
        guard let index = slot(of: bytes, tag: Self.tag(of: bytes)), shouldRemove(entries[index].unsafelyUnwrapped) else { return nil }
        return remove(at: index)
    }

    @discardableResult
    private mutating func remove(at index: Int) -> Element {
        let mask = self.mask
        let removed = entries.withUnsafeMutableBufferPointer { entries in
            tags.withUnsafeMutableBufferPointer { tags in
                // Backward shift: each later entry of the run moves into the hole when its home
                // slot does not lie (cyclically) between the hole and where it sits. References
                // are moved, not copied: no retain and release for each entry that shifts.
                let removed = entries[index].take().unsafelyUnwrapped
                var hole = index
                var next = (index + 1) & mask
                while tags[next] != 0 {
                    let home = Int(tags[next]) & mask
                    let stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
                    if !stays {
                        tags[hole] = tags[next]
                        entries[hole] = entries[next].take()
                        hole = next
                    }
                    next = (next + 1) & mask
                }
                tags[hole] = 0
                return removed
            }
        }
        count -= 1
        // A table a burst grew gives its slots back once it is mostly empty; one no larger than
        // `keptCapacity` keeps them, so a table that fills and empties with every batch (a
        // worker's in-flight set, the outcomes owed until an ACK) does not regrow each time.
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

/// Pending requests by request id.
typealias RequestTable = IDTable<PendingRequest>

extension IDTable where Element == PendingRequest {
    /// Every request in the table, in no particular order.
    var requests: [PendingRequest] { elements }
}
