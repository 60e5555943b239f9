import ActionCoordinator
import ArgumentParser

/// The coordinator's standbys: where its journal is replicated, and what a lagging one costs.
struct ReplicationOptions: ParsableArguments {
    @Option(name: .customLong("standby"), help: ArgumentHelp(
        "Endpoint of a warm standby (actionbus standby --listen) to replicate the journal to; repeat for several.",
        discussion: "Replies leave only once every in-sync standby has written and synced their batch."
    ))
    var standbys: [String] = []
    @Option(help: "How long a standby may owe an acknowledgement before it is out of sync (500ms, 2s).")
    var standbyTimeout = DurationArgument(.seconds(2))
    @Flag(help: ArgumentHelp(
        "Choose availability: a standby that falls behind leaves the in-sync set and commits stop waiting for it.",
        discussion: """
            Without it (safety), new requests are refused 'unavailable' while a standby is out of sync, and replies \
            of accepted requests wait for it to come back. With it, what is accepted while a standby is out of sync \
            is on this host's disk alone.
            """
    ))
    var standbyOptional = false

    func apply(to configuration: inout CoordinatorConfiguration) {
        configuration.standbys = standbys
        configuration.standbyTimeout = standbyTimeout.duration ?? .seconds(2)
        configuration.standbyOptional = standbyOptional
    }

    func validate() throws {
        guard let timeout = standbyTimeout.duration, timeout > .zero else {
            throw ValidationError("--standby-timeout takes a positive duration (500ms, 2s)")
        }
    }
}
