/// A fleet-wide switch of one feature, as FEATURES (client → coordinator) and SWITCHES
/// (coordinator → worker) carry it: the feature's name frame, then one state byte.
public enum FeatureSwitch: UInt8, Sendable, Hashable, CaseIterable {
    /// Switched off: its actions fail `featureUnavailable` on every worker.
    case off = 0
    /// Switched on: a runtime-switched conditional feature is available whatever its default.
    case on = 1
    /// No fleet-wide switch: each worker's own default applies again (FEATURES only).
    case cleared = 2

    /// Appends `switches` as name and state frames, in name order (so the bytes are stable).
    package static func encode<Writer: WireFrameWriter>(_ switches: [String: FeatureSwitch], into writer: inout Writer) {
        for name in switches.keys.sorted() {
            writer.append(name)
            writer.append(CollectionOfOne(switches[name]!.rawValue))
        }
    }
}

extension FrameReader {
    /// The remaining frames as (feature name, state) pairs; `allowCleared` for FEATURES.
    mutating func featureSwitches(allowCleared: Bool) throws(WireError) -> [String: FeatureSwitch] {
        guard remaining % 2 == 0 else {
            throw WireError(.truncated, "\(command) lists a feature without its state")
        }
        guard remaining / 2 <= limits.maxActionsPerWorker else {
            throw WireError(.oversize, "\(command) lists \(remaining / 2) features, limit \(limits.maxActionsPerWorker)")
        }
        var switches: [String: FeatureSwitch] = [:]
        while remaining > 0 {
            let name = try self.name("feature")
            guard !name.contains(".") else {
                throw WireError(.invalidField, "'\(name)' is an action name, not a feature's")
            }
            let state = try fixed("feature state", size: 1)
            guard let value = FeatureSwitch(rawValue: state[state.startIndex]), allowCleared || value != .cleared else {
                throw WireError(.invalidField, "feature state \(state[state.startIndex]) is not \(allowCleared ? "0, 1 or 2" : "0 or 1")")
            }
            guard switches.updateValue(value, forKey: name) == nil else {
                throw WireError(.invalidField, "\(command) lists feature '\(name)' twice")
            }
        }
        return switches
    }
}
