/// A precondition of a test that did not hold (a process did not start, a wait ran out): the
/// test stops there, with what it saw.
package struct FixtureError: Error, CustomStringConvertible {
    package let description: String

    package init(description: String) {
        self.description = description
    }
}

/// Throws a ``FixtureError`` with `message` unless `condition` holds.
package func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw FixtureError(description: message()) }
}
