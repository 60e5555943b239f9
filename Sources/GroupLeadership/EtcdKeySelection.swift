/// Which keys a read or a delete covers: one key, or every key that starts with a prefix.
package enum EtcdKeySelection: Equatable, Sendable {
    case key(String)
    case prefix(String)
}
