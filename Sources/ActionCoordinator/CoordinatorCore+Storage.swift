import ActionWire
import Logging

/// The disk watermark: measurements of the journal's free space in, refusals of new requests out.
extension CoordinatorCore {
    /// Takes a measurement of the free space on the journal's file system: below
    /// ``CoordinatorConfiguration/minFreeDiskBytes`` new requests are refused `storageFull`
    /// until it is back above the resume level. Logs each crossing (once) and returns it: the
    /// caller compacts the journal early when the disk filled.
    @discardableResult
    package func measuredFreeDisk(_ freeBytes: Int) -> StorageWatermark.Change? {
        guard let change = storage.measured(freeBytes: freeBytes) else { return nil }
        let metadata: Logger.Metadata = [
            "disk.free": "\(freeBytes)", "disk.minimum": "\(storage.minimumBytes)", "disk.resume": "\(storage.resumeBytes)",
        ]
        switch change {
        case .filled:
            logger.warning("journal's file system below its free-space minimum: new requests are refused (storageFull) until space returns; accepted ones still run", metadata: metadata)
        case .freed:
            logger.notice("journal's file system has room again: new requests are accepted", metadata: metadata)
            journalDeferredKnownActions()
        }
        return change
    }

    /// Whether new requests are refused for want of disk space.
    var refusesForStorage: Bool { storage.isFull }

    /// Answers a new request while the disk is below its minimum. Nothing is recorded: a retry
    /// once space returns is a new request.
    func refuseStorageFull(_ request: WireRequest, from client: ClientAddress) {
        counters.storageFullRefusals += 1
        let message = "the coordinator's journal disk has \(storage.freeBytes ?? 0) bytes free, under its minimum of \(storage.minimumBytes) "
            + "(--min-free-disk): new requests are refused until space returns (requests already accepted still run); retry later"
        outbox.send(.outcome(.failure(for: request, code: BusErrorCode.storageFull, message: message)), to: client)
    }
}
