/// A client address requests were sent from, kept once for all its requests, with the share of
/// the queue they count against.
///
/// A request holds a reference to it rather than its own copy of the address: a million queued
/// requests from a handful of connections hold a handful of addresses.
final class RequestSender {
    let address: ClientAddress
    let share: ClientShare

    init(address: ClientAddress, share: ClientShare) {
        self.address = address
        self.share = share
    }
}
