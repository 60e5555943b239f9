/// What WORKERS-REPLY carries: every worker the coordinator has registered, as a JSON object
/// (`actionbus workers` prints it as a table).
public struct FleetWorkersReport: Codable, Sendable, Equatable {
    /// One registered worker.
    public struct Worker: Codable, Sendable, Equatable {
        /// Its name (shown in outcomes).
        public var name: String
        /// Its routing id, as hex (`h` and a hash when long).
        public var id: String
        /// `ABP/5` for an ActionBus worker, `MDP/0.1` for a Majordomo one.
        public var protocolName: String
        /// The actions it serves, sorted.
        public var actions: [String]
        /// How many requests it runs at once.
        public var credits: Int
        /// How many it runs now.
        public var inFlight: Int
        /// Sessions pinned to it.
        public var sessions: Int
        /// Milliseconds since the coordinator last heard from it.
        public var lastHeardMs: Int
        /// It is shutting down: no new work goes to it.
        public var draining: Bool
        /// A send to it failed: out of the pool until it is heard from again.
        public var unreachable: Bool

        /// Creates a worker's entry.
        public init(
            name: String, id: String, protocolName: String, actions: [String], credits: Int, inFlight: Int, sessions: Int,
            lastHeardMs: Int, draining: Bool, unreachable: Bool
        ) {
            self.name = name
            self.id = id
            self.protocolName = protocolName
            self.actions = actions
            self.credits = credits
            self.inFlight = inFlight
            self.sessions = sessions
            self.lastHeardMs = lastHeardMs
            self.draining = draining
            self.unreachable = unreachable
        }

        enum CodingKeys: String, CodingKey {
            case name, id, actions, credits, inFlight, sessions, lastHeardMs, draining, unreachable
            case protocolName = "protocol"
        }
    }

    /// The workers, by name.
    public var workers: [Worker]
    /// Workers left out so the report fits in one message.
    public var omittedWorkers: Int?

    /// Creates a report.
    public init(workers: [Worker]) { self.workers = workers }
}

/// What QUEUES-REPLY carries: what waits and what runs, per action and per session, as a JSON
/// object (`actionbus queues` prints it as a table).
public struct FleetQueuesReport: Codable, Sendable, Equatable {
    /// One action that something waits for, runs, or some worker serves.
    public struct ActionQueue: Codable, Sendable, Equatable {
        /// The action's full name.
        public var action: String
        /// Requests of it waiting for a worker (in its lane or in their sessions' lanes).
        public var queued: Int
        /// Requests of it running on workers.
        public var running: Int
        /// Registered workers serving it.
        public var workers: Int
        /// For an action the fleet served and no registered worker serves now, since when (ISO
        /// 8601): its requests wait for a worker. `nil` while a worker serves it, and for an
        /// action the fleet never served (its requests fail `noWorker`).
        public var noWorkerSince: String?

        /// Creates an entry.
        public init(action: String, queued: Int, running: Int, workers: Int, noWorkerSince: String? = nil) {
            self.action = action
            self.queued = queued
            self.running = running
            self.workers = workers
            self.noWorkerSince = noWorkerSince
        }
    }

    /// One session whose requests wait.
    public struct SessionQueue: Codable, Sendable, Equatable {
        /// The session's name.
        public var session: String
        /// Its requests waiting.
        public var queued: Int
        /// The worker it is pinned to, if any.
        public var worker: String?

        /// Creates an entry.
        public init(session: String, queued: Int, worker: String?) {
            self.session = session
            self.queued = queued
            self.worker = worker
        }
    }

    /// Every action with something queued or running, or served, by name.
    public var actions: [ActionQueue]
    /// Actions left out so the report fits in one message (those with the least queued).
    public var omittedActions: Int?
    /// The sessions with the most requests waiting, most first (at most ``maxSessions``).
    public var sessions: [SessionQueue]
    /// Sessions with requests waiting that the list leaves out.
    public var omittedSessions: Int
    /// Requests waiting, in all.
    public var queued: Int
    /// Requests running, in all.
    public var running: Int

    /// The most sessions a report lists.
    package static let maxSessions = 100

    /// Creates a report.
    public init(actions: [ActionQueue], sessions: [SessionQueue], omittedSessions: Int, queued: Int, running: Int) {
        self.actions = actions
        self.sessions = sessions
        self.omittedSessions = omittedSessions
        self.queued = queued
        self.running = running
    }
}
