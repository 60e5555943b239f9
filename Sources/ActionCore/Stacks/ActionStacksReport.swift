import Foundation

/// Every open action stack at one moment: a Codable JSON report and a human-readable text one.
public struct ActionStacksReport: Sendable, Hashable, Codable {
    /// The open root stacks, oldest first, each with its sub-stacks nested inside.
    public var stacks: [ActionStackSnapshot]
    /// How many older open stacks were left out so that the report fits a message; `nil` when
    /// none were.
    public var omittedStacks: Int?

    /// Creates a report.
    public init(stacks: [ActionStackSnapshot], omittedStacks: Int? = nil) {
        self.stacks = stacks
        self.omittedStacks = omittedStacks
    }

    /// The report as pretty-printed JSON with sorted keys and ISO 8601 dates.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(self)
    }

    /// Decodes a report produced by ``jsonData()``.
    public init(jsonData: Data) throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        self = try decoder.decode(Self.self, from: jsonData)
    }

    /// The report as indented text, one line per entry.
    public var text: String {
        var lines = ["Active Action Stacks", "===================="]
        if stacks.isEmpty {
            lines.append("(none)")
        }
        if let omittedStacks {
            lines.append("(\(omittedStacks) older stacks not shown: the report would not fit a message; filter by session)")
        }
        for stack in stacks {
            stack.appendText(to: &lines, indent: "")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension ActionStackSnapshot {
    func appendText(to lines: inout [String], indent: String) {
        let origin = userInitiated ? "user initiated" : "not user initiated"
        lines.append("\(indent)Stack \(id) for feature \(featureName) in session '\(sessionName)' (\(origin)):")
        if droppedEntryCount > 0 {
            lines.append("\(indent)  … \(droppedEntryCount) older entries dropped")
        }
        for entry in entries {
            switch entry.kind {
            case .action:
                lines.append("\(indent)  \(entry.actionName ?? "?") → \(entry.outcome.map(String.init(describing:)) ?? "?")")
            case .subStack:
                lines.append("\(indent)  ↪ sub-stack \(entry.subStackID.map(String.init(describing:)) ?? "?") (\(entry.subStackFeatureName ?? "?"))")
            }
        }
        for subStack in subStacks {
            subStack.appendText(to: &lines, indent: indent + "    ")
        }
    }
}
