import Foundation

extension Duration {
    /// The duration in seconds, for wall-clock arithmetic with `Date`.
    var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
