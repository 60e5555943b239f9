/// The routing ids of the connections heard from most recently, so a message from a known peer
/// reuses the stored bytes instead of allocating a copy: every pending request keeps its
/// client's routing id, and a million of them would otherwise hold a million copies.
struct RoutingIDCache {
    private var entries: [[UInt8]] = []
    private var next = 0
    let capacity: Int

    init(capacity: Int = 32) { self.capacity = capacity }

    /// The stored copy of `bytes`, storing it (replacing the oldest entry) when it is new.
    mutating func intern(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        if let known = entries.first(where: { $0.elementsEqual(bytes) }) { return known }
        let copy = Array(bytes)
        if entries.count < capacity {
            entries.append(copy)
        } else {
            entries[next] = copy
            next = (next + 1) % capacity
        }
        return copy
    }
}
