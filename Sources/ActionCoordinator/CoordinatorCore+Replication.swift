import ActionWire

/// The standbys' in-sync set: its changes in, refusals of new requests out.
extension CoordinatorCore {
    /// Takes the replication's in-sync set; new requests are refused `unavailable` while it
    /// is short (unless the operator chose availability).
    package func replicationChanged(_ status: ReplicationStatus) {
        if status.inSync != replication.inSync, replication.configured > 0 { counters.standbyInSyncChanges += 1 }
        replication = status
    }

    /// Records the last standby acknowledgement's lag, for the statistics.
    package func standbyAcknowledged(after lag: Duration) {
        counters.standbyAckLagMicroseconds = Int(lag.wholeNanoseconds / 1_000)
    }

    /// Answers a new request while too few standbys are in sync. Nothing is recorded: a retry
    /// once they are back is a new request.
    func refuseUnavailable(_ request: WireRequest, from client: ClientAddress, _ refusal: String) {
        counters.unavailableRefusals += 1
        outbox.sendUnheld(.outcome(.failure(for: request, code: BusErrorCode.unavailable, message: refusal + "; retry later")), to: client)
    }
}
