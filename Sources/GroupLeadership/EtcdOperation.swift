import Foundation

/// One operation of a transaction's branch.
package enum EtcdOperation: Equatable, Sendable {
    /// Writes `value` at `key`, attached to `lease` if given.
    case put(key: String, value: Data, lease: Int64? = nil)
    case get(EtcdKeySelection)
    case delete(EtcdKeySelection)
}
