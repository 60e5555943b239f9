import DequeModule

/// The requests waiting in one ``Lane``, oldest first (a redelivery goes back to the head).
///
/// A class holding the requests themselves: dispatch takes one from the head in place, without
/// the dictionary's `modify` accessor and without looking the request up again by its id.
/// Entries of requests that left without dispatch stay until dispatch meets them
/// (``PendingRequest/isFinished``).
final class LaneQueue {
    @exclusivity(unchecked) var requests: Deque<PendingRequest>
    /// It held 64 requests at once at some point: not kept as a spare once emptied.
    @exclusivity(unchecked) var isLarge = false

    init() { requests = [] }
}
