@testable import ActionCore
import Testing

/// Emptied arrays kept for reuse: their storage comes back with its capacity, the pool stays
/// within its bounds, and with the pool full the larger arrays are the ones kept.
@Suite("Spare arrays")
struct SpareArraysTests {
    @Test func anArrayKeptComesBackEmptyWithItsCapacityAndItsOwnerEmpty() {
        var spares = SpareArrays<Int>()
        var used = Array(0..<100)
        let capacity = used.capacity
        spares.keep(emptying: &used)
        #expect(used.isEmpty && used.capacity == 0)
        let again = spares.take()
        #expect(again.isEmpty && again.capacity == capacity)
        #expect(spares.take().capacity == 0)
    }

    @Test func hugeAndStoragelessArraysAreNotKept() {
        var spares = SpareArrays<Int>(count: 4, largestCapacity: 64)
        var huge = Array(0..<1000)
        spares.keep(emptying: &huge)
        var none: [Int] = []
        spares.keep(emptying: &none)
        #expect(spares.take().capacity == 0)
    }

    @Test func withThePoolFullALargerArrayReplacesTheSmallest() {
        var spares = SpareArrays<Int>(count: 2, largestCapacity: 4_096)
        for size in [10, 20, 400, 5] {
            var array = Array(0..<size)
            spares.keep(emptying: &array)
        }
        // Kept: the 400 and the 20 (the 10 gave way to the 400; the 5 is smaller than both).
        let capacities = [spares.take().capacity, spares.take().capacity].sorted()
        #expect(capacities[0] >= 20 && capacities[0] < 400 && capacities[1] >= 400)
        #expect(spares.take().capacity == 0)
    }
}
