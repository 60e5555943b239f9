/// Objects by request id: an open-addressing hash table of references, keyed by the id bytes
/// each object holds (pending requests, kept outcomes).
///
/// A dictionary keyed by `String` costs each entry a key of its own (16 bytes, plus a heap copy
/// of any id of 16 bytes or more) besides the 24-byte slot; this table costs 16 bytes a slot (a
/// reference and a 32-bit tag of the id's hash, side by side) and no key. The tag decides the
/// home slot and settles almost every probe without reading the object; an object keeps its
/// tag, so finding or removing it again hashes nothing. The hash is `Hasher`'s, seeded per
/// process, so ids chosen by a client cannot be made to collide. Linear probing with
/// backward-shift deletion: no tombstones, so a table that churns stays as fast as a fresh one.
///
/// The client's `SequenceTable` is the same table for sequence numbers. One generic table for
/// both, specialised in each module, measured 1 % slower on the coordinator's routing step and
/// 40 % slower on the client's own lookups (Swift 6.3), so each keeps its concrete shape.
struct IDTable<Element: IDKeyed> {
    /// A tag and its element in one slot: a probe that finds its tag finds the reference in the
    /// same cache line (held in two arrays, each found element cost a second cache miss).
    private struct Slot {
        /// 0 marks an empty slot; a tag is never 0.
        var tag: UInt32
        var element: Element?
    }

    private var slots: [Slot]
    private(set) var count = 0
    private var mask: Int

    /// The slots a new table has.
    private static var minimumCapacity: Int { 8 }
    /// The slots a table keeps however empty it gets (16 bytes each, so 256 KiB at most).
    /// Large enough for what fills and empties at full load between two of a client's ACKs
    /// (a few thousand outcomes owed), so those tables do not shrink and regrow, copying every
    /// entry, with each ACK: that churn was 1 to 2 % of the coordinator's CPU.
    private static var keptCapacity: Int { 16_384 }

    init() {
        slots = Self.emptySlots(Self.minimumCapacity)
        mask = Self.minimumCapacity - 1
    }

    private static func emptySlots(_ capacity: Int) -> [Slot] {
        Array(repeating: Slot(tag: 0, element: nil), count: capacity)
    }

    var isEmpty: Bool { count == 0 }

    /// Every element in the table, in no particular order.
    var elements: [Element] { slots.compactMap(\.element) }

    static func tag(of id: UnsafeRawBufferPointer) -> UInt32 { IDTag.of(id) }

    static func tag(of id: String) -> UInt32 { IDTag.of(id) }

    private static func withBytes<Result>(of id: String, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        IDTag.withBytes(of: id, body)
    }

    /// The slot holding the element with id `id`, if any.
    private func slot(of id: UnsafeRawBufferPointer, tag: UInt32) -> Int? {
        var index = Int(tag) & mask
        while true {
            let found = slots[index].tag
            if found == 0 { return nil }
            if found == tag, slots[index].element.unsafelyUnwrapped.hasID(id) { return index }
            index = (index + 1) & mask
        }
    }

    /// The slot holding `element` itself, if any: found by reference, so no id is compared.
    private func slot(of element: Element) -> Int? {
        let tag = element.idTag
        var index = Int(tag) & mask
        while true {
            let found = slots[index].tag
            if found == 0 { return nil }
            if found == tag, slots[index].element === element { return index }
            index = (index + 1) & mask
        }
    }

    subscript(id: String) -> Element? {
        self[id, tag: Self.tag(of: id)]
    }

    /// The element with id `id`, whose tag (``tag(of:)``) the caller already has.
    subscript(id: String, tag tag: UInt32) -> Element? {
        Self.withBytes(of: id) { bytes in slot(of: bytes, tag: tag).map { slots[$0].element.unsafelyUnwrapped } }
    }

    /// The element whose id is `bytes`.
    subscript(idBytes bytes: UnsafeRawBufferPointer) -> Element? {
        slot(of: bytes, tag: Self.tag(of: bytes)).map { slots[$0].element.unsafelyUnwrapped }
    }

    func contains(_ id: String) -> Bool { self[id] != nil }

    /// Whether an element with the id of `element` (it, or another) is in the table.
    func containsID(of element: Element) -> Bool {
        element.withIDBytes { bytes in slot(of: bytes, tag: element.idTag) != nil }
    }

    func contains(where predicate: (Element) -> Bool) -> Bool {
        slots.contains { $0.element.map(predicate) ?? false }
    }

    /// Adds `element`; no element with its id may be in the table.
    mutating func insert(_ element: Element) {
        if (count + 1) * 4 > slots.count * 3 { resize(to: slots.count * 2) }
        place(element, tag: element.idTag)
        count += 1
    }

    /// Adds `element` in place of the element with its id, returned, if there is one.
    mutating func replace(_ element: Element) -> Element? {
        if let index = element.withIDBytes({ slot(of: $0, tag: element.idTag) }) {
            let replaced = slots[index].element.unsafelyUnwrapped
            slots[index].element = element
            return replaced
        }
        insert(element)
        return nil
    }

    private mutating func place(_ element: Element, tag: UInt32) {
        var index = Int(tag) & mask
        while slots[index].tag != 0 { index = (index + 1) & mask }
        slots[index] = Slot(tag: tag, element: element)
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
        guard let index = slot(of: bytes, tag: Self.tag(of: bytes)), shouldRemove(slots[index].element.unsafelyUnwrapped) else { return nil }
        return remove(at: index)
    }

    @discardableResult
    private mutating func remove(at index: Int) -> Element {
        let mask = self.mask
        let removed = slots.withUnsafeMutableBufferPointer { slots in
            // Backward shift: each later entry of the run moves into the hole when its home
            // slot does not lie (cyclically) between the hole and where it sits. References
            // are moved, not copied: no retain and release for each entry that shifts.
            let removed = slots[index].element.take().unsafelyUnwrapped
            var hole = index
            var next = (index + 1) & mask
            while slots[next].tag != 0 {
                let home = Int(slots[next].tag) & mask
                let stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
                if !stays {
                    slots[hole].tag = slots[next].tag
                    slots[hole].element = slots[next].element.take()
                    hole = next
                }
                next = (next + 1) & mask
            }
            slots[hole].tag = 0
            return removed
        }
        count -= 1
        // A table a burst grew gives its slots back once it is mostly empty; one no larger than
        // `keptCapacity` keeps them, so a table that fills and empties with every batch (a
        // worker's in-flight set, the outcomes owed until an ACK) does not regrow each time.
        if slots.count > Self.keptCapacity, count * 8 < slots.count { resize(to: slots.count / 4) }
        return removed
    }

    private mutating func resize(to capacity: Int) {
        let oldSlots = slots
        slots = Self.emptySlots(capacity)
        mask = capacity - 1
        for slot in oldSlots where slot.tag != 0 {
            place(slot.element.unsafelyUnwrapped, tag: slot.tag)
        }
    }
}

/// Pending requests by request id.
typealias RequestTable = IDTable<PendingRequest>

extension IDTable where Element == PendingRequest {
    /// Every request in the table, in no particular order.
    var requests: [PendingRequest] { elements }
}
