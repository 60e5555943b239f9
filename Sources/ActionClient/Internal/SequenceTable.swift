/// Calls by sequence number: open addressing, linear probing and backward-shift deletion (no
/// tombstones), at most half full.
///
/// The home slot is the number's Fibonacci hash (its product with 2⁶⁴/φ, top bits), which
/// spreads consecutive numbers, as pending ones mostly are, evenly over the table. The number's
/// own low bits would put them in consecutive slots: one long run, which every removal's
/// backward shift walks to its end (a client at 1 000 in flight spent 30 % more CPU so).
///
/// The coordinator's `IDTable` is the same table for hashed ids; why they are not one generic
/// table is said there.
struct SequenceTable {
    private struct Slot {
        var sequence: UInt64
        var call: PendingCall?
    }

    private static let minimumCapacity = 64
    /// The slots a table keeps however empty it gets (16 bytes each, so 256 KiB).
    private static let keptCapacity = 16_384
    private var slots: [Slot]
    private var mask: Int
    /// 64 less the bits of a slot's index.
    private var shift: UInt64
    private(set) var count = 0

    init() {
        slots = Self.emptySlots(Self.minimumCapacity)
        mask = Self.minimumCapacity - 1
        shift = Self.shift(for: Self.minimumCapacity)
    }

    private static func shift(for capacity: Int) -> UInt64 {
        UInt64(64 - (capacity.bitWidth - 1 - capacity.leadingZeroBitCount))
    }

    private func home(_ sequence: UInt64) -> Int {
        Int(truncatingIfNeeded: (sequence &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    private static func emptySlots(_ capacity: Int) -> [Slot] {
        Array(repeating: Slot(sequence: 0, call: nil), count: capacity)
    }

    var elements: [PendingCall] { slots.compactMap(\.call) }

    private func slot(of sequence: UInt64) -> Int? {
        var index = home(sequence)
        while slots[index].call != nil {
            if slots[index].sequence == sequence { return index }
            index = (index + 1) & mask
        }
        return nil
    }

    subscript(sequence: UInt64) -> PendingCall? {
        slot(of: sequence).map { slots[$0].call.unsafelyUnwrapped }
    }

    /// Adds `call` under `sequence` unless one is there already: that one is returned.
    mutating func insert(_ call: PendingCall, for sequence: UInt64) -> PendingCall? {
        if let index = slot(of: sequence) { return slots[index].call }
        if (count + 1) * 2 > slots.count { resize(to: slots.count * 2) }
        place(call, sequence)
        count += 1
        return nil
    }

    private mutating func place(_ call: PendingCall, _ sequence: UInt64) {
        var index = home(sequence)
        while slots[index].call != nil { index = (index + 1) & mask }
        slots[index] = Slot(sequence: sequence, call: call)
    }

    mutating func remove(_ sequence: UInt64) -> PendingCall? {
        guard let index = slot(of: sequence) else { return nil }
        let mask = self.mask, shift = self.shift
        let removed = slots.withUnsafeMutableBufferPointer { slots in
            // Backward shift: each later entry of the run moves into the hole unless its home
            // slot lies (cyclically) between the hole and where it sits.
            let removed = slots[index].call.take()
            var hole = index
            var next = (index + 1) & mask
            while slots[next].call != nil {
                let home = Int(truncatingIfNeeded: (slots[next].sequence &* 0x9E37_79B9_7F4A_7C15) >> shift)
                let stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
                if !stays {
                    slots[hole].sequence = slots[next].sequence
                    slots[hole].call = slots[next].call.take()
                    hole = next
                }
                next = (next + 1) & mask
            }
            return removed
        }
        count -= 1
        // A burst's slots go back once the table is mostly empty; up to `keptCapacity` stay, so
        // a window that swings between a few thousand calls does not shrink and regrow.
        if slots.count > Self.keptCapacity, count * 8 < slots.count { resize(to: slots.count / 4) }
        return removed
    }

    private mutating func resize(to capacity: Int) {
        let old = slots
        slots = Self.emptySlots(capacity)
        mask = capacity - 1
        shift = Self.shift(for: capacity)
        for slot in old { if let call = slot.call { place(call, slot.sequence) } }
    }
}
