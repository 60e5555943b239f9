import Foundation

/// One key as etcd stores it, with its revisions: `createRevision` is the store's revision when
/// the key was last created (a key deleted and created again gets a new, higher one),
/// `modRevision` that of its last change, `version` how many changes since it was created.
package struct EtcdKeyValue: Equatable, Sendable {
    package let key: String
    package let value: Data
    package let createRevision: Int64
    package let modRevision: Int64
    package let version: Int64
    /// The lease the key is attached to, if any: the key goes when the lease does.
    package let lease: Int64?

    package init(key: String, value: Data, createRevision: Int64, modRevision: Int64, version: Int64, lease: Int64?) {
        self.key = key
        self.value = value
        self.createRevision = createRevision
        self.modRevision = modRevision
        self.version = version
        self.lease = lease
    }

    /// The value read as UTF-8 text.
    package var text: String { String(decoding: value, as: UTF8.self) }
}
