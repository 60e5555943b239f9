/// How many records one PERFORM, REQUEST, RESULT, OUTCOME or EVENT carries when a sender has
/// several ready: at most `maxRecords`, and about `maxBytes` (a message always takes at least one
/// record, however large). Well inside what receivers accept (``WireLimits/maxRecordsPerMessage``).
public enum WireBatching {
    /// The most records a sender puts in one message.
    public static let maxRecords = 256
    /// About the most bytes of record payload a sender puts in one message.
    public static let maxBytes = 256 * 1024

    /// `records` split into consecutive runs, one message each, within the limits; `size` is a
    /// record's variable payload in bytes. Inlinable, so each sender gets a specialised copy
    /// rather than a generic one that looks up metadata per record.
    @inlinable
    public static func runs<Records: RandomAccessCollection>(
        of records: Records, maxRecords: Int = maxRecords, size: (Records.Element) -> Int
    ) -> [Range<Records.Index>] {
        var runs: [Range<Records.Index>] = []
        var start = records.startIndex
        while start < records.endIndex {
            var end = start, count = 0, bytes = 0
            while end < records.endIndex, count < maxRecords, count == 0 || bytes + size(records[end]) <= maxBytes {
                bytes += size(records[end])
                count += 1
                end = records.index(after: end)
            }
            runs.append(start..<end)
            start = end
        }
        return runs
    }

    /// The records of `run` (one of ``runs(of:maxRecords:size:)``): `records` itself when the run
    /// is all of it, as it nearly always is, rather than a copy. A copy of a hundred records is a
    /// large allocation, and glibc pays for each by consolidating every small chunk freed since
    /// the last.
    @inlinable
    public static func records<Record>(_ records: [Record], in run: Range<Int>) -> [Record] {
        run.count == records.count ? records : Array(records[run])
    }

    /// Whether a run of `count` records of `bytes` bytes is full before `next` more bytes.
    @inlinable
    public static func isFull(count: Int, bytes: Int, adding next: Int) -> Bool {
        count >= maxRecords || (count > 0 && bytes + next > maxBytes)
    }
}
