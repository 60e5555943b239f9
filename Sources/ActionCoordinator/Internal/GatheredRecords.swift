import ActionWire

/// Records gathered during a batch for one destination (a worker, a client, a kind of topic),
/// to go out together when it ends.
///
/// A class: appended to on every request, in place, rather than through a dictionary's
/// `modify` accessor (whose coroutine frames are heap-allocated).
final class GatheredRecords<Record> {
    private(set) var records: [Record] = []
    /// Their variable payload, for ``WireBatching``'s byte bound.
    private(set) var bytes = 0

    init() {}

    /// A gathering into `storage` (empty), an array an earlier one used: grown by doubling from
    /// empty, a batch of a hundred reallocated its array seven times, and each large step made
    /// glibc consolidate its free chunks.
    init(storage: [Record]) {
        records = storage
    }

    func append(_ record: Record, bytes size: Int) {
        records.append(record)
        bytes += size
    }

    /// Whether `size` more bytes would go past one message.
    func isFull(adding size: Int) -> Bool {
        WireBatching.isFull(count: records.count, bytes: bytes, adding: size)
    }

    /// The records, leaving none. The array is handed over, not copied (the caller may give its
    /// storage to a later gathering).
    func take() -> [Record] {
        let taken = records
        records = []
        bytes = 0
        return taken
    }
}
