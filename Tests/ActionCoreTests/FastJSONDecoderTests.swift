@testable import ActionCore
import Foundation
import Testing

/// The fast decoder of action inputs either gives exactly what Foundation's `JSONDecoder`
/// gives, or declines (and the perform uses `JSONDecoder`, errors and all).
@Suite("Fast JSON decoder")
struct FastJSONDecoderTests {
    struct Message: Codable, Equatable {
        var text: String
    }

    struct Everything: Codable, Equatable {
        enum Kind: String, Codable { case small, large }
        struct Inner: Codable, Equatable { var flag: Bool; var values: [Int] }

        var name: String
        var count: Int
        var small: Int8
        var unsigned: UInt32
        var ratio: Double
        var kind: Kind
        var optional: String?
        var missing: Int?
        var nested: Inner
        var list: [Inner]
        var table: [String: Double]
        var numbered: [Int: String]
        var matrix: [[Int?]]
    }

    /// Decodes `json` both ways: the fast decoder may decline, but never disagrees.
    func agree<T: Decodable & Equatable>(_ type: T.Type, _ json: String) -> (fast: T?, foundation: T?) {
        let data = Data(json.utf8)
        let fast = FastJSONDecoder.decode(type, from: data)
        let foundation = try? JSONDecoder().decode(type, from: data)
        if let fast { #expect(fast == foundation, "\(json)") }
        return (fast, foundation)
    }

    @Test func decodesWhatActionsTakeAsFoundationDoes() throws {
        #expect(agree(Message.self, #"{"text":"hello"}"#).fast == Message(text: "hello"))
        #expect(agree(Message.self, #" { "text" : "a \"quoted\" \\ \/ \n line \u00e9 \ud83d\ude00" } "#).fast != nil)
        #expect(agree(Message.self, #"{"text":"ünïcödé","extra":[1,{"x":null}]}"#).fast != nil)
        let everything = #"""
        {"name":"n","count":-42,"small":127,"unsigned":4294967295,"ratio":-1.5e-3,"kind":"large",
         "optional":null,"nested":{"flag":true,"values":[0,1,-2]},"list":[{"flag":false,"values":[]}],
         "table":{"a":1,"b":2.5e10},"numbered":{"1":"one","20":"twenty"},"matrix":[[1,null],[],[3]]}
        """#
        let decoded = agree(Everything.self, everything)
        #expect(decoded.fast != nil)
        #expect(decoded.fast?.numbered[20] == "twenty")
        #expect(agree([String].self, #"["a","b"]"#).fast == ["a", "b"])
        #expect(agree(Int.self, "7").fast == 7)
        #expect(agree(Double.self, "0.1").fast == 0.1)
        #expect(agree(String?.self, "null").fast == .some(nil))
    }

    @Test func declinesWhatItIsNotSureOfAndFoundationDecides() {
        let declined: [(String, (String) -> Bool)] = [
            // Not JSON, or not this type: Foundation's error is the one to report.
            (#"{"text":}"#, { FastJSONDecoder.decode(Message.self, from: Data($0.utf8)) == nil }),
            (#"{"text":"x"} trailing"#, { FastJSONDecoder.decode(Message.self, from: Data($0.utf8)) == nil }),
            (#"{"text":1}"#, { FastJSONDecoder.decode(Message.self, from: Data($0.utf8)) == nil }),
            (#"{}"#, { FastJSONDecoder.decode(Message.self, from: Data($0.utf8)) == nil }),
            ("{\"text\":\"\u{01}\"}", { FastJSONDecoder.decode(Message.self, from: Data($0.utf8)) == nil }),
            (#"{"text":"\ud83d"}"#, { FastJSONDecoder.decode(Message.self, from: Data($0.utf8)) == nil }),
            // Duplicate names, numbers that need Foundation's own rules.
            (#"{"text":"a","text":"b"}"#, { FastJSONDecoder.decode(Message.self, from: Data($0.utf8)) == nil }),
            ("1.0", { FastJSONDecoder.decode(Int.self, from: Data($0.utf8)) == nil }),
            ("1e2", { FastJSONDecoder.decode(Int.self, from: Data($0.utf8)) == nil }),
            ("300", { FastJSONDecoder.decode(UInt8.self, from: Data($0.utf8)) == nil }),
            ("-0", { FastJSONDecoder.decode(UInt.self, from: Data($0.utf8)) == nil }),
            ("1e400", { FastJSONDecoder.decode(Double.self, from: Data($0.utf8)) == nil }),
            ("0.5", { FastJSONDecoder.decode(Float.self, from: Data($0.utf8)) == nil }),
            ("012", { FastJSONDecoder.decode(Int.self, from: Data($0.utf8)) == nil }),
            // Types JSONDecoder decodes by its own rules.
            (#""aGk=""#, { FastJSONDecoder.decode(Data.self, from: Data($0.utf8)) == nil }),
            (#"["https://example.com"]"#, { FastJSONDecoder.decode([URL].self, from: Data($0.utf8)) == nil }),
            ("12.5", { FastJSONDecoder.decode(Decimal.self, from: Data($0.utf8)) == nil }),
            ("0", { FastJSONDecoder.decode(Date.self, from: Data($0.utf8)) == nil }),
            (String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
             { FastJSONDecoder.decode(JSONArrayNest.self, from: Data($0.utf8)) == nil }),
            // An underflow to zero, which Foundation refuses; a 128-bit integer.
            (#"{"ratio":1e-400}"#, { FastJSONDecoder.decode([String: Double].self, from: Data($0.utf8)) == nil }),
            (#"{"big":5}"#, { FastJSONDecoder.decode(CatchingWide.self, from: Data($0.utf8)) == nil }),
            // An object too large to scan member by member.
            ("{" + (0..<40).map { "\"k\($0)\":0" }.joined(separator: ",") + "}",
             { FastJSONDecoder.decode([String: Int].self, from: Data($0.utf8)) == nil }),
        ]
        for (json, declines) in declined { #expect(declines(json), "\(json)") }

        // Bytes that are not UTF-8 (a String cannot hold them): declined, and Foundation refuses them.
        let notUTF8 = Data(#"{"text":"a"#.utf8) + Data([0xFF, 0xFE]) + Data(#""}"#.utf8)
        #expect(FastJSONDecoder.decode(Message.self, from: notUTF8) == nil)
        #expect((try? JSONDecoder().decode(Message.self, from: notUTF8)) == nil)
    }

    /// A type whose decode recovers from an error: the fast decoder declines the whole decode,
    /// since Foundation might not have thrown at that point.
    struct Recovering: Decodable, Equatable {
        var data: Data?
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            data = try? container.decode(Data.self, forKey: .data)
        }
        enum CodingKeys: CodingKey { case data }
    }

    /// Reads a 128-bit integer, falling back to 0 when that fails: Foundation reads it.
    struct CatchingWide: Decodable {
        var big: Int128
        enum CodingKeys: CodingKey { case big }
        init(from decoder: any Decoder) throws {
            big = (try? decoder.container(keyedBy: CodingKeys.self).decode(Int128.self, forKey: .big)) ?? 0
        }
    }

    /// Keeps the elements it can read, as "lossy array" types do: a failed element must be
    /// decodable again as something else, as Foundation allows.
    struct LossyColors: Decodable, Equatable {
        enum Color: String, Decodable { case red, blue }
        var colors: [Color] = []
        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            while !container.isAtEnd {
                if let color = try? container.decode(Color.self) {
                    colors.append(color)
                } else {
                    _ = try container.decode(String.self)
                }
            }
        }
    }

    @Test func aFailedElementIsNotSkipped() throws {
        let json = Data(#"["red","bogus","blue"]"#.utf8)
        let foundation = try JSONDecoder().decode(LossyColors.self, from: json)
        #expect(foundation.colors == [.red, .blue])
        // The error inside is caught, so the fast decoder declines; were it to answer, it must agree.
        if let fast = FastJSONDecoder.decode(LossyColors.self, from: json) { #expect(fast == foundation) }
        #expect(agree([Int].self, "[" + (0..<200).map(String.init).joined(separator: ",") + "]").fast?.count == 200)
    }

    @Test func aCaughtErrorStillLeavesTheDecodeToFoundation() throws {
        let json = Data(#"{"data":"aGk="}"#.utf8)
        #expect(FastJSONDecoder.decode(Recovering.self, from: json) == nil)
        #expect(try JSONDecoder().decode(Recovering.self, from: json).data == Data("hi".utf8))
    }
}

/// Nested arrays, for the depth limit.
indirect enum JSONArrayNest: Decodable, Equatable {
    case list([JSONArrayNest])
    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var items: [JSONArrayNest] = []
        while !container.isAtEnd { items.append(try container.decode(JSONArrayNest.self)) }
        self = .list(items)
    }
}
