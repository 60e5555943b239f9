/// Topics of the outcome stream, so subscribers filter by feature, action and session at the
/// socket (ZeroMQ matches topic prefixes).
///
/// Each outcome is published twice: under an action-first topic
/// `"A␟Feature␟action␟session␟"` and a session-first topic `"S␟session␟Feature␟action␟"`
/// (␟ is the unit separator 0x1F, which names may not contain). Every combination of filters
/// is then a prefix of one of them.
package enum OutcomeTopic {
    /// The separator between topic parts.
    package static let separator: UInt8 = 0x1F

    /// The longest prefix a REPLAY may name: a kind, a session, a feature and an action, each
    /// at most 255 bytes, and their separators.
    package static let maxPrefixBytes = 2 + 3 * 256

    /// Whether a subscriber of `prefix` gets `outcome`: whether either of its topics starts with it.
    package static func matches(_ outcome: WireOutcome, prefix: [UInt8]) -> Bool {
        guard !prefix.isEmpty else { return true }
        let (byAction, bySession) = topics(for: outcome)
        return byAction.starts(with: prefix) || bySession.starts(with: prefix)
    }

    /// The subscription prefix for a filter; `nil` parts match anything.
    ///
    /// An `action` is either `Feature.action` or a bare action name used with `feature`.
    package static func prefix(feature: String? = nil, action: String? = nil, session: String? = nil) -> [UInt8] {
        var feature = feature
        var actionName = action
        if let action, let dot = action.firstIndex(of: ".") {
            feature = String(action[..<dot])
            actionName = String(action[action.index(after: dot)...])
        }
        var parts: [String]
        if let session {
            parts = ["S", session]
            if let feature {
                parts.append(feature)
                if let actionName { parts.append(actionName) }
            }
        } else {
            parts = ["A"]
            if let feature {
                parts.append(feature)
                if let actionName { parts.append(actionName) }
            }
        }
        return join(parts)
    }

    /// The subscription prefix for began events (``BeganEvent``) with a filter: the same parts
    /// as ``prefix(feature:action:session:)`` under `B` (action first) or `b` (session first), so
    /// a subscriber to outcomes gets none of them unless it asks.
    package static func beganPrefix(feature: String? = nil, action: String? = nil, session: String? = nil) -> [UInt8] {
        var prefix = self.prefix(feature: feature, action: action, session: session)
        prefix[0] = prefix[0] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "b")
        return prefix
    }

    /// The two topics a began event is published under: `B␟Feature␟action␟session␟` and
    /// `b␟session␟Feature␟action␟`.
    package static func beganTopics(for event: BeganEvent) -> (byAction: [UInt8], bySession: [UInt8]) {
        topics("B", "b", action: event.action, session: event.session)
    }

    /// `actionFirst␟Feature␟action␟session␟` and `sessionFirst␟session␟Feature␟action␟`, written
    /// straight from the names' bytes (every outcome published makes both).
    private static func topics(
        _ actionFirst: Unicode.Scalar, _ sessionFirst: Unicode.Scalar, action fullName: String, session: String
    ) -> (byAction: [UInt8], bySession: [UInt8]) {
        let (feature, action) = split(fullName)
        let length = 2 + feature.utf8.count + 1 + action.utf8.count + 1 + session.utf8.count + 1
        var byAction: [UInt8] = [], bySession: [UInt8] = []
        byAction.reserveCapacity(length)
        bySession.reserveCapacity(length)
        func append(_ part: Substring, to topic: inout [UInt8]) {
            topic.append(contentsOf: part.utf8)
            topic.append(separator)
        }
        byAction.append(UInt8(ascii: actionFirst))
        byAction.append(separator)
        append(feature, to: &byAction)
        append(action, to: &byAction)
        append(session[...], to: &byAction)
        bySession.append(UInt8(ascii: sessionFirst))
        bySession.append(separator)
        append(session[...], to: &bySession)
        append(feature, to: &bySession)
        append(action, to: &bySession)
        return (byAction, bySession)
    }

    /// Whether a subscription prefix matches began events' topics (the empty prefix matches all).
    package static func matchesBegan(_ prefix: [UInt8]) -> Bool {
        prefix.first.map { $0 == UInt8(ascii: "B") || $0 == UInt8(ascii: "b") } ?? true
    }

    /// The two topics an outcome is published under.
    package static func topics(for outcome: WireOutcome) -> (byAction: [UInt8], bySession: [UInt8]) {
        topics("A", "S", action: outcome.action, session: outcome.session)
    }

    /// Which sequence number a subscriber with this filter checks for gaps.
    package static func scope(feature: String?, action: String?, session: String?) -> OutcomeSequences.Scope {
        // A bare action name without a feature filters nothing (``prefix`` ignores it).
        let hasAction = action.map { WireName.isActionName($0) || feature != nil } ?? false
        let hasFeature = feature != nil || hasAction
        switch (hasFeature, hasAction, session != nil) {
        case (_, true, true): return .sessionAction
        case (true, false, true): return .sessionFeature
        case (false, _, true): return .session
        case (_, true, false): return .action
        case (true, false, false): return .feature
        default: return .all
        }
    }

    /// `Feature.action` cut at its first dot (a name without one is all feature), without a copy.
    static func split(_ action: String) -> (feature: Substring, action: Substring) {
        // The dot is ASCII, so its UTF-8 index is a character boundary.
        guard let dot = action.utf8.firstIndex(of: UInt8(ascii: ".")) else { return (action[...], "") }
        return (action[..<dot], action[action.utf8.index(after: dot)...])
    }

    private static func join(_ parts: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        for part in parts {
            bytes.append(contentsOf: part.utf8)
            bytes.append(separator)
        }
        return bytes
    }
}
