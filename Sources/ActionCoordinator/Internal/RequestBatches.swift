import ActionWire

/// The requests the core chose for each worker during a batch of the loop, sent when the batch
/// ends: one REQUEST per worker with all of them (up to ``WireBatching``'s limits), not one
/// message a request.
///
/// Requests whose message cannot leave (the worker's connection is gone) go back to the core
/// at the end of the batch, never from inside one of its calls; a worker that leaves has its
/// unsent requests withdrawn, so nothing runs twice. Loop thread only.
final class RequestBatches {
    private let transmitter: WorkerTransmitter
    /// Takes back the requests that could not leave; set once it exists.
    @exclusivity(unchecked) var core: CoordinatorCore!
    /// Requests chosen for each worker during this batch.
    @exclusivity(unchecked) private var batches: [WorkerID: GatheredRecords<OutgoingRequest>] = [:]
    /// The batch a request was added to last (while it is in `batches`): dispatch sends runs of
    /// requests to one worker, found without hashing its routing id for each.
    @exclusivity(unchecked) private var lastBatch: (worker: WorkerID, gathered: GatheredRecords<OutgoingRequest>)?
    /// Requests whose message could not leave, for the core at the end of the batch.
    @exclusivity(unchecked) private var undelivered: [(worker: WorkerID, requestIDs: [String])] = []
    /// Workers a send failed to in the batch being handled.
    @exclusivity(unchecked) private var unreachable: Set<WorkerID> = []

    init(transmitter: WorkerTransmitter) {
        self.transmitter = transmitter
    }

    /// Keeps the request for the batch's REQUEST to its worker.
    func add(_ request: OutgoingRequest, to worker: WorkerID) {
        if let last = lastBatch, last.worker == worker {
            last.gathered.append(request, bytes: request.byteCount)
        } else if let gathered = batches[worker] {
            gathered.append(request, bytes: request.byteCount)
            lastBatch = (worker, gathered)
        } else {
            let gathered = GatheredRecords<OutgoingRequest>()
            gathered.append(request, bytes: request.byteCount)
            batches[worker] = gathered
            lastBatch = (worker, gathered)
        }
    }

    /// Sends an instruction behind the requests gathered for its worker (a CANCEL, say, follows
    /// the requests chosen before it); `false` when it cannot leave.
    func send(_ instruction: WorkerInstruction, to worker: WorkerID) -> Bool {
        if batches[worker] != nil { sendBatch(to: worker) }
        return transmitter.transmit(instruction, to: worker)
    }

    /// Forgets the requests gathered for `worker` (it left) and returns their ids.
    func withdraw(to worker: WorkerID) -> [String] {
        // What already failed to leave for it is no longer the core's to take back.
        undelivered.removeAll { $0.worker == worker }
        if lastBatch?.worker == worker { lastBatch = nil }
        return batches.removeValue(forKey: worker)?.records.map(\.requestID) ?? []
    }

    /// Sends every worker the requests chosen for it; requests that cannot leave go back to the
    /// core, which may choose other workers for them, whose batches then go too. Each failure
    /// takes a worker out of the pool, so this ends.
    func sendAll() {
        repeat {
            while let worker = batches.keys.first { sendBatch(to: worker) }
            let failed = undelivered
            undelivered.removeAll()
            for (worker, requestIDs) in failed { core.undelivered(requestIDs, to: worker, now: .now) }
        } while !batches.isEmpty
        unreachable.removeAll()
    }

    private func sendBatch(to worker: WorkerID) {
        if lastBatch?.worker == worker { lastBatch = nil }
        guard let requests = batches.removeValue(forKey: worker)?.records, !requests.isEmpty else { return }
        // Once a send to it failed in this batch, nothing more goes to it before the core has
        // taken the failed requests back: a later request of a session must not overtake them.
        guard !unreachable.contains(worker) else {
            undelivered.append((worker, requests.map(\.requestID)))
            return
        }
        let maxRecords = transmitter.maxRequestsPerMessage(to: worker)
        for run in WireBatching.runs(of: requests, maxRecords: maxRecords, size: { $0.byteCount }) {
            guard transmitter.transmit(requests[run], to: worker) else {
                unreachable.insert(worker)
                undelivered.append((worker, requests[run.lowerBound...].map(\.requestID)))
                return
            }
        }
    }
}
