import Foundation

/// One condition of a transaction: a key's create revision, modification revision, version or
/// value compared with a given one. A key that does not exist has revisions and version 0.
package struct EtcdCompare: Equatable, Sendable {
    package enum Target: Equatable, Sendable {
        case createRevision(Int64)
        case modRevision(Int64)
        case version(Int64)
        case value(Data)
    }

    package enum Relation: String, Equatable, Sendable {
        case equal = "EQUAL"
        case notEqual = "NOT_EQUAL"
        case greater = "GREATER"
        case less = "LESS"
    }

    package let key: String
    package let target: Target
    package let relation: Relation

    package init(key: String, _ target: Target, _ relation: Relation = .equal) {
        self.key = key
        self.target = target
        self.relation = relation
    }

    /// The key does not exist (its create revision is 0).
    package static func absent(_ key: String) -> EtcdCompare {
        EtcdCompare(key: key, .createRevision(0))
    }
}
