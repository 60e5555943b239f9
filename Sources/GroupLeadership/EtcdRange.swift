/// The keys a range read found, and the store's revision when it read them.
package struct EtcdRange: Equatable, Sendable {
    package let revision: Int64
    package let keyValues: [EtcdKeyValue]

    package init(revision: Int64, keyValues: [EtcdKeyValue]) {
        self.revision = revision
        self.keyValues = keyValues
    }

    /// The single key a one-key read found, if it exists.
    package var first: EtcdKeyValue? { keyValues.first }
}
