import ActionWire

/// Records gathered during a batch for one destination (a worker, a client, a kind of topic),
/// to go out together when it ends.
///
/// A class: appended to on every request, in place, rather than through a dictionary's
/// `modify` accessor (whose coroutine frames are heap-allocated).
final class GatheredRecords<Record> {
    @exclusivity(unchecked) private(set) var records: [Record] = []
    /// Their variable payload, for ``WireBatching``'s byte bound.
    @exclusivity(unchecked) private(set) var bytes = 0

    func append(_ record: Record, bytes size: Int) {
        records.append(record)
        bytes += size
    }

    /// Whether `size` more bytes would go past one message.
    func isFull(adding size: Int) -> Bool {
        WireBatching.isFull(count: records.count, bytes: bytes, adding: size)
    }

    /// The records, leaving none. The array is handed over, not copied: the next batch starts a
    /// new one (one allocation a message).
    func take() -> [Record] {
        let taken = records
        records = []
        bytes = 0
        return taken
    }
}
