import ActionTransport
import ActionWire
import Logging
import ZeroMQ

/// Writes what goes to a worker onto the workers socket: in ABP, a REQUEST's records written
/// straight into the message; to a Majordomo worker, through the bridge in its version.
/// Loop thread only.
final class WorkerTransmitter {
    private let workers: Socket
    private let majordomo: MajordomoBridge
    private let logger: Logger
    @exclusivity(unchecked) private var outgoing = PackedFrames()

    init(workers: Socket, majordomo: MajordomoBridge, logger: Logger) {
        self.workers = workers
        self.majordomo = majordomo
        self.logger = logger
    }

    /// The most requests one message to `worker` carries: an MDP/0.1 worker takes one.
    func maxRequestsPerMessage(to worker: WorkerID) -> Int {
        majordomo.isRegistered(worker) ? 1 : WireBatching.maxRecords
    }

    /// Sends an instruction; `false` when it cannot leave.
    func transmit(_ instruction: WorkerInstruction, to worker: WorkerID) -> Bool {
        if let version = majordomo.version(of: worker) {
            return majordomo.transmit(instruction, to: worker, version: version)
        }
        outgoing.removeAll()
        outgoing.append(worker.routingID)
        instruction.encode(into: &outgoing)
        return sendOutgoing(to: worker)
    }

    /// Sends one REQUEST of `requests`; `false` when it cannot leave.
    func transmit(_ requests: ArraySlice<OutgoingRequest>, to worker: WorkerID) -> Bool {
        if majordomo.version(of: worker) != nil {
            return transmit(requests.count == 1 ? .packedRequest(requests[requests.startIndex].packed)
                            : .packedRequests(requests.map(\.packed)), to: worker)
        }
        outgoing.removeAll()
        outgoing.append(worker.routingID)
        outgoing.append(WireHeader.bytes(.request))
        for request in requests { request.append(to: &outgoing) }
        return sendOutgoing(to: worker)
    }

    /// Sends the message built in `outgoing`; `false` when it cannot leave.
    private func sendOutgoing(to worker: WorkerID) -> Bool {
        do {
            try workers.sendBusMessage(outgoing, envelope: 1, options: .dontWait)
            return true
        } catch {
            logger.debug("worker unreachable", metadata: ["worker.id": "\(worker)", "zmq.error": "\(error)"])
            return false
        }
    }
}
