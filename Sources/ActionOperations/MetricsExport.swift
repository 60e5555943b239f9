import Foundation
import Locking
import Metrics
import Prometheus

/// Turns a process's counters into swift-metrics counters and gauges at scrape time, and
/// renders the Prometheus registry they go to. Counting stays where it is cheapest (plain
/// integers on the I/O loop); a scrape adds each counter's increase since the last scrape.
public final class MetricsExport: Sendable {
    private let registry: PrometheusCollectorRegistry
    /// Each counter's value at the last scrape, by metric name and labels.
    private let exported = Locked<[String: Int]>([:])

    /// Exports to `registry`, the one `MetricsSystem` was bootstrapped with.
    public init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    /// Adds `value - last value` to the counter `name` with `dimensions`.
    public func counter(_ name: String, _ value: Int, dimensions: [(String, String)] = []) {
        let key = name + dimensions.map { "|\($0.0)=\($0.1)" }.joined()
        let increase = exported.withLock { last -> Int in
            defer { last[key] = value }
            let previous = last[key] ?? 0
            // A count that went down started again from zero (a group member's coordinator
            // is new each term): all of it is new.
            return value < previous ? value : value - previous
        }
        if increase > 0 { Counter(label: name, dimensions: dimensions).increment(by: Int64(increase)) }
    }

    /// Sets the gauge `name` with `dimensions` to `value`.
    public func gauge(_ name: String, _ value: Int, dimensions: [(String, String)] = []) {
        Gauge(label: name, dimensions: dimensions).record(Int64(value))
    }

    /// Sets the gauge `name` for each value of its one `label` (a worker, an action), and
    /// removes the series of values gone since the last scrape, so a worker that left does not
    /// show its last load forever.
    public func gauges(_ name: String, label: String, _ values: [String: Int]) {
        let gone = series.withLock { series -> Set<String> in
            defer { series[name] = Set(values.keys) }
            return (series[name] ?? []).subtracting(values.keys)
        }
        for value in gone { Gauge(label: name, dimensions: [(label, value)]).destroy() }
        for (value, number) in values { gauge(name, number, dimensions: [(label, value)]) }
    }

    /// The label values each labelled gauge had at the last scrape.
    private let series = Locked<[String: Set<String>]>([:])

    /// Exports every integer field of `counters` as `prefix_field`: the fields in `gauges` as
    /// gauges, the others as counters (`_total`). Fields that are not integers are skipped.
    public func export(_ counters: some Any, prefix: String, gauges: Set<String>, dimensions: [(String, String)] = []) {
        for child in Mirror(reflecting: counters).children {
            guard let field = child.label, let value = child.value as? Int else { continue }
            let name = prefix + "_" + Self.snakeCase(field)
            if gauges.contains(field) {
                gauge(name, value, dimensions: dimensions)
            } else {
                counter(name + "_total", value, dimensions: dimensions)
            }
        }
    }

    /// The registry in Prometheus's text format.
    public func render() -> String {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// `streamOverflows` → `stream_overflows`.
    static func snakeCase(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase {
                result += "_" + character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }
}
