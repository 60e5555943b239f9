import ActionWire

/// Who may add work, and how much: the senders of unfinished requests, each client
/// connection's share of the queue, and the checks a PERFORM passes before it is accepted
/// (the limits, a resend's sameness, the id's owner).
///
/// It is not thread-safe: the coordinator's core owns it.
final class Admission {
    /// The most unfinished requests the coordinator holds, and one client connection may have.
    let maxQueued: Int
    let maxQueuedPerClient: Int
    /// Accepted, unfinished requests per client connection, for the per-client share.
    /// Connections with no unfinished request are forgotten by ``forgetIdleClients()``.
    @exclusivity(unchecked) private(set) var clientShares: [RoutingKey: ClientShare] = [:]
    /// Every client address with unfinished requests, once (its requests point at it).
    @exclusivity(unchecked) private var senders: [ClientAddress: RequestSender] = [:]
    /// The sender the last request came from: a PERFORM's requests all come from one, so
    /// finding it again hashes no address.
    @exclusivity(unchecked) private var lastSender: RequestSender?

    init(maxQueued: Int, maxQueuedPerClient: Int) {
        self.maxQueued = maxQueued
        self.maxQueuedPerClient = maxQueuedPerClient
    }

    /// Client connections with unfinished requests.
    var activeClients: Int { clientShares.values.count { $0.unfinished > 0 } }

    /// The one ``RequestSender`` for `client`, made on its first request (and forgotten by
    /// ``forgetIdleClients()`` when its connection has nothing unfinished).
    func sender(_ client: ClientAddress) -> RequestSender {
        if let last = lastSender, last.address == client { return last }
        if let known = senders[client] {
            lastSender = known
            return known
        }
        let share: ClientShare
        if let known = clientShares[RoutingKey(client.routingID)] {
            share = known
        } else {
            share = ClientShare()
            clientShares[RoutingKey(client.routingID)] = share
        }
        let sender = RequestSender(address: client, share: share)
        senders[client] = sender
        lastSender = sender
        return sender
    }

    /// Why a new request must be refused `overloaded` while the coordinator holds `unfinished`
    /// requests, or `nil` when there is room.
    func fullRefusal(unfinished: Int) -> String? {
        guard unfinished >= maxQueued else { return nil }
        return "the coordinator holds \(unfinished) unfinished requests (limit \(maxQueued)); retry later"
    }

    /// Why a new request from `sender` must be refused `overloaded` (its connection has used its
    /// share), or `nil` when it may be accepted.
    func shareRefusal(_ sender: RequestSender) -> String? {
        let load = sender.share.unfinished
        guard load >= maxQueuedPerClient else { return nil }
        return "this client has \(load) unfinished requests (its share is \(maxQueuedPerClient)); retry later"
    }

    /// Forgets the connections and addresses with nothing unfinished.
    func forgetIdleClients() {
        guard clientShares.values.contains(where: { $0.unfinished == 0 }) else { return }
        clientShares = clientShares.filter { $0.value.unfinished > 0 }
        senders = senders.filter { $0.value.share.unfinished > 0 }
        lastSender = nil
    }

    /// What differs between a request and the one first sent under its id, if anything: a
    /// resend is the same request; anything else reusing the id must not get the other's outcome.
    static func conflict(
        _ request: WireRequest, input: ArraySlice<UInt8>, original: (action: String, session: String, input: UInt64?)
    ) -> String? {
        if request.action != original.action { return "action \(original.action)" }
        if request.session != original.session { return "session '\(original.session)'" }
        if let digest = original.input, digest != InputDigest.of(input) { return "another input" }
        return nil
    }
}
