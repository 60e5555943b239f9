/// A coordinator's endpoint, or those of every member of a coordinator group, as one option:
/// `tcp://10.0.0.1:5555,tcp://10.0.0.2:5555,tcp://10.0.0.3:5555`. Only a group's leader binds
/// its endpoints, so a client or worker connects to one member at a time and moves on to the
/// next when its connection is refused or drops, or the member stays silent, until the one
/// that leads answers.
package struct MemberEndpoints: Sendable {
    package let all: [String]
    package private(set) var index = 0
    /// The highest epoch a member named (PONG, WELCOME): a group leader's term, 0 outside one.
    package private(set) var highestEpoch: UInt64 = 0
    /// Whether the current member named an older epoch than one seen before: a deposed leader
    /// that has not noticed yet. Nothing more it sends is taken, until the next move.
    package private(set) var currentIsDeposed = false
    /// Where the next move goes: the member another one named as the leader (NOT-LEADER).
    private var namedLeader: Int?
    /// When the last move to a named leader was made.
    private var lastNamedMoveAt: ContinuousClock.Instant?

    /// Splits `option` at commas (ZeroMQ endpoints have none).
    package init(_ option: String) {
        let parts = option.split(separator: ",").map { String($0.filter { $0 != " " }) }.filter { !$0.isEmpty }
        all = parts.isEmpty ? [option] : parts
    }

    /// How often at most a client or worker moves on when told NOT-LEADER or refused: while
    /// no member leads (during an election) every member says so or refuses, and the peer goes
    /// round them at this pace, not as fast as sockets can be made.
    package static let movePause: Duration = .milliseconds(100)

    /// How long until the next move, the last made at `movedAt` (none: at once). A move to a
    /// member named as the leader goes at once, unless the last such move was less than
    /// ``movePause`` ago: members naming each other (one has not yet seen the other stop
    /// leading) are then gone round at the usual pace, not as fast as sockets can be made.
    package func waitBeforeMove(lastMovedAt movedAt: ContinuousClock.Instant?, now: ContinuousClock.Instant) -> Duration {
        if namedLeader != nil, lastNamedMoveAt.map({ now - $0 >= Self.movePause }) ?? true { return .zero }
        return max(movedAt.map { Self.movePause - (now - $0) } ?? .zero, .zero)
    }

    /// A member answered NOT-LEADER naming `leader`'s endpoint: when it is one of these (not the
    /// current one), the next move goes there; returns whether it will. An endpoint not in the
    /// list is not followed (the list is the operator's, and a member may publish its endpoint
    /// as other members reach it, not as this peer does): the move goes to the next as usual.
    package mutating func leaderNamed(_ leader: String?) -> Bool {
        guard let leader, let position = all.firstIndex(of: leader), position != index else { return false }
        namedLeader = position
        return true
    }

    /// The member to connect to now.
    package var current: String { all[index] }

    /// Whether there are several members to choose from.
    package var isGroup: Bool { all.count > 1 }

    /// The current member answers after all (it refused while it was binding): the peer stays,
    /// and a leader named meanwhile is not moved to later.
    package mutating func stay() {
        namedLeader = nil
    }

    /// Moves to the member named as the leader, if one was, else to the next (the first after
    /// the last), and returns it.
    package mutating func advance(now: ContinuousClock.Instant = .now) -> String {
        if let namedLeader {
            index = namedLeader
            lastNamedMoveAt = now
            self.namedLeader = nil
        } else {
            index = (index + 1) % all.count
        }
        currentIsDeposed = false
        return current
    }

    /// The current member named `epoch`: whether to follow it. An older epoch than the highest
    /// seen marks it deposed (the caller moves on); any other becomes the highest seen.
    package mutating func accept(epoch: UInt64) -> Bool {
        guard epoch >= highestEpoch else {
            currentIsDeposed = true
            return false
        }
        highestEpoch = epoch
        return true
    }
}
