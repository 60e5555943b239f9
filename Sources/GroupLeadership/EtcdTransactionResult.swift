/// What a transaction did: whether its conditions held (so its success branch ran), the store's
/// revision after it, and one result for each operation of the branch that ran, in order.
package struct EtcdTransactionResult: Equatable, Sendable {
    package enum OperationResult: Equatable, Sendable {
        /// A put, with the revision it made.
        case put(revision: Int64)
        case get(EtcdRange)
        case deleted(count: Int64)
    }

    package let succeeded: Bool
    package let revision: Int64
    package let results: [OperationResult]

    package init(succeeded: Bool, revision: Int64, results: [OperationResult]) {
        self.succeeded = succeeded
        self.revision = revision
        self.results = results
    }
}
