import ActionWire

/// What the coordinator holds back until the records of the same batch are durable: stream
/// events, ACCEPTEDs (one message per client), other replies, and instructions to workers
/// that say what is durable, in order.
struct HeldOutput: Sendable {
    var events: [StreamMessage] = []
    var acceptances: [(client: ClientAddress, requestIDs: [String])] = []
    var replies: [(reply: ClientReply, client: ClientAddress)] = []
    var workerInstructions: [(instruction: WorkerInstruction, worker: WorkerID)] = []
    /// The last stream position the batch gave (0: none): replays may show it once it leaves.
    var streamPosition: UInt64 = 0

    var isEmpty: Bool { events.isEmpty && acceptances.isEmpty && replies.isEmpty && workerInstructions.isEmpty && streamPosition == 0 }
}
