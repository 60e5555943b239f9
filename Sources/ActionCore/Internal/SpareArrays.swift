/// Emptied arrays kept for reuse, so that a collection made again and again (a deadline
/// bucket, a batch's records) starts with the capacity earlier ones reached instead of doubling
/// up to it: glibc answers each large step by consolidating every small chunk freed since the
/// last one. Bounded in number and in each array's capacity; with the pool full, a larger array
/// takes the place of the smallest.
package struct SpareArrays<Element> {
    private var spares: [[Element]] = []
    private let count: Int
    private let largestCapacity: Int

    package init(count: Int = 16, largestCapacity: Int = 4_096) {
        self.count = count
        self.largestCapacity = largestCapacity
    }

    /// An empty array, with the capacity of a kept one when there is one.
    package mutating func take() -> [Element] {
        spares.popLast() ?? []
    }

    /// Takes `array`'s storage, leaving it empty, and keeps it (emptied) for a later
    /// ``take()``, unless it is huge or no larger than every kept one with the pool full.
    package mutating func keep(emptying array: inout [Element]) {
        var storage: [Element] = []
        swap(&storage, &array)
        guard storage.capacity > 0, storage.capacity <= largestCapacity else { return }
        // Unique now (the caller's was the only reference): emptied in place, capacity kept.
        storage.removeAll(keepingCapacity: true)
        if spares.count < count {
            spares.append(storage)
        } else if let smallest = spares.indices.min(by: { spares[$0].capacity < spares[$1].capacity }),
                  spares[smallest].capacity < storage.capacity {
            spares[smallest] = storage
        }
    }
}
