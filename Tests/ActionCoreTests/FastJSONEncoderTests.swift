@testable import ActionCore
import Foundation
import Testing

/// The fast encoder of action outputs either writes exactly the bytes the session's
/// `JSONEncoder` writes (sorted keys, slashes as they are), or declines.
@Suite("Fast JSON encoder")
struct FastJSONEncoderTests {
    struct Output: Encodable {
        struct Inner: Encodable { var flag: Bool; var values: [Int]; var note: String? }
        enum Kind: String, Encodable { case small, large }

        var zeta = "last"
        var alpha = "first"
        var Beta = "upper case sorts first"
        var text = "quote \" backslash \\ slash / newline \n tab \t bell \u{07} unit \u{1F} é 😀"
        var count = -42
        var big = UInt64.max
        var small: Int8 = -128
        var missing: String?
        var present: String? = "here"
        var kind = Kind.large
        var nested = Inner(flag: true, values: [1, -2, 3], note: nil)
        var list = [Inner(flag: false, values: [], note: "n")]
        var table = ["b": 2, "a": 1, "a1": 3, "a10": 4, "a2": 5]
        var numbered = [20: "twenty", 1: "one", 3: "three"]
        var matrix: [[Int?]] = [[1, nil], [], [3]]
        var empty: [String: Int] = [:]
    }

    /// A type that writes its own containers, nested and twice over.
    struct Handmade: Encodable {
        enum Keys: String, CodingKey { case header, rows, meta }
        func encode(to encoder: any Encoder) throws {
            var first = encoder.container(keyedBy: Keys.self)
            try first.encode("h", forKey: .header)
            var rows = first.nestedUnkeyedContainer(forKey: .rows)
            var row = rows.nestedContainer(keyedBy: Keys.self)
            try row.encode(true, forKey: .meta)
            try rows.encode("x")
            var again = encoder.container(keyedBy: Keys.self)
            try again.encodeNil(forKey: .meta)
        }
    }

    func sameAsFoundation<T: Encodable>(_ value: T) throws -> Bool {
        let foundation = try JSONCoders.encoder.encode(value)
        guard let fast = FastJSONEncoder.encode(value) else { return false }
        #expect(String(decoding: fast, as: UTF8.self) == String(decoding: foundation, as: UTF8.self))
        return true
    }

    @Test func writesFoundationsBytes() throws {
        #expect(try sameAsFoundation(Output()))
        #expect(try sameAsFoundation(Handmade()))
        #expect(try sameAsFoundation(["a/b": "c/d"]))
        #expect(try sameAsFoundation("a top-level string"))
        #expect(try sameAsFoundation(7))
        #expect(try sameAsFoundation([String?.none, "x"]))
        #expect(try sameAsFoundation(NoOutput()) || FastJSONEncoder.encode(NoOutput()) == nil)
    }

    struct WithDouble: Encodable { var ratio = 0.1 }
    struct WithData: Encodable { var data = Data("hi".utf8) }
    struct WithDate: Encodable { var date = Date(timeIntervalSinceReferenceDate: 0) }
    struct WithURL: Encodable { var url = URL(string: "https://example.com/a")! }
    struct Nothing: Encodable { func encode(to encoder: any Encoder) throws {} }
    struct TwiceTheKey: Encodable {
        enum Keys: CodingKey { case key }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(1, forKey: .key)
            try container.encode(2, forKey: .key)
        }
    }
    struct Super: Encodable {
        enum Keys: CodingKey { case key }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try "s".encode(to: container.superEncoder())
        }
    }

    /// Writes a 128-bit integer when it can: Foundation can.
    struct Wide: Encodable {
        enum Keys: CodingKey { case big }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try? container.encode(Int128(5), forKey: .big)
        }
    }
    final class Chain: Encodable {
        let next: Chain?
        init(depth: Int) { next = depth > 0 ? Chain(depth: depth - 1) : nil }
    }
    /// Two keys equal as Strings (one precomposed, one not) with another sorting between them.
    struct EquivalentKeys: Encodable {
        enum Keys: String, CodingKey { case decomposed = "e\u{301}", between = "f", precomposed = "\u{e9}" }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(1, forKey: .decomposed)
            try container.encode(2, forKey: .between)
            try container.encode(3, forKey: .precomposed)
        }
    }

    @Test func declinesWhatFoundationWritesByItsOwnRules() {
        #expect(FastJSONEncoder.encode(Wide()) == nil)
        #expect(FastJSONEncoder.encode(Chain(depth: 600)) == nil)
        #expect(FastJSONEncoder.encode(EquivalentKeys()) == nil)
        #expect(FastJSONEncoder.encode(Chain(depth: 50)) != nil)
        #expect(FastJSONEncoder.encode(WithDouble()) == nil)
        #expect(FastJSONEncoder.encode(WithData()) == nil)
        #expect(FastJSONEncoder.encode(WithDate()) == nil)
        #expect(FastJSONEncoder.encode(WithURL()) == nil)
        #expect(FastJSONEncoder.encode(Decimal(1)) == nil)
        #expect(FastJSONEncoder.encode(Nothing()) == nil)
        #expect(FastJSONEncoder.encode(TwiceTheKey()) == nil)
        #expect(FastJSONEncoder.encode(Super()) == nil)
        #expect(FastJSONEncoder.encode([1.5]) == nil)
    }
}
