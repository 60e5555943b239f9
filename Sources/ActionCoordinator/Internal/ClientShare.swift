/// How many accepted, unfinished requests one client connection has: what its share of the
/// queue is checked against.
///
/// A class, held by each of the connection's requests: finishing one counts down in place,
/// without hashing the routing id again.
final class ClientShare {
    @exclusivity(unchecked) var unfinished = 0
}
