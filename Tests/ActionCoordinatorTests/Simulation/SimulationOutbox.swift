import ActionCoordinator
import ActionJournal
import ActionWire

/// The simulated coordinator's outbox: holds what a batch decided until the batch is committed
/// to the journal, as the coordinator's driver does, so a crash before the commit loses both.
final class SimulationOutbox: CoordinatorOutbox {
    enum Output {
        case reply(ClientReply, to: ClientAddress)
        case instruction(WorkerInstruction, to: WorkerID)
        case stream(StreamMessage)
    }

    /// What the batch being handled sent, in order.
    private(set) var held: [Output] = []
    /// What the batch being handled journaled, in order.
    private(set) var records: [JournalRecord] = []
    /// Whether a worker's connection takes messages (a crashed worker's does not).
    var isReachable: (WorkerID) -> Bool = { _ in true }

    func send(_ reply: ClientReply, to client: ClientAddress) {
        held.append(.reply(reply, to: client))
    }

    func send(_ instruction: WorkerInstruction, to worker: WorkerID) -> Bool {
        guard isReachable(worker) else { return false }
        switch instruction {
        case .packedRequest(let packed): held.append(.instruction(.request(packed.request!), to: worker))
        default: held.append(.instruction(instruction, to: worker))
        }
        return true
    }

    func publish(_ message: StreamMessage) {
        held.append(.stream(message))
    }

    func journal(_ record: @autoclosure () -> JournalRecord) {
        records.append(record())
    }

    /// Ends the batch: returns what it sent and journaled, and starts the next one empty.
    func takeBatch() -> (outputs: [Output], records: [JournalRecord]) {
        defer { held = []; records = [] }
        return (held, records)
    }
}
