/// Decodes a command straight from its dictionary of `ArgValue`s (`CommandSpec.decode`), with
/// the errors a JSON round trip gave (`valueNotFound` for a null where a value is needed,
/// `typeMismatch` for a value of another kind), without encoding and parsing JSON for every
/// line typed.
struct ArgDecoder: Decoder {
    enum Input { case object([String: ArgValue]), value(ArgValue) }
    let input: Input
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(object: [String: ArgValue]) { input = .object(object); codingPath = [] }
    init(value: ArgValue, path: [any CodingKey]) { input = .value(value); codingPath = path }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let o) = input else { throw mismatch([String: ArgValue].self, codingPath) }
        return KeyedDecodingContainer(Keyed<Key>(object: o, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .value(.array(let xs)) = input else { throw mismatch([ArgValue].self, codingPath) }
        return Unkeyed(values: xs, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        guard case .value(let v) = input else { throw mismatch(ArgValue.self, codingPath) }
        return Single(value: v, codingPath: codingPath)
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let object: [String: ArgValue]
        let codingPath: [any CodingKey]
        var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

        func value(_ key: Key) throws -> ArgValue {
            guard let v = object[key.stringValue] else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no argument \(key.stringValue)"))
            }
            return v
        }

        func decodeNil(forKey key: Key) throws -> Bool { try value(key) == .null }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try ArgDecoder.decode(type, from: try value(key), path: codingPath + [key])
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            throw mismatch([String: ArgValue].self, codingPath + [key])
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try ArgDecoder(value: try value(key), path: codingPath + [key]).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder { ArgDecoder(object: object) }
        func superDecoder(forKey key: Key) throws -> any Decoder { ArgDecoder(value: try value(key), path: codingPath + [key]) }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let values: [ArgValue]
        let codingPath: [any CodingKey]
        var currentIndex = 0
        var count: Int? { values.count }
        var isAtEnd: Bool { currentIndex >= values.count }

        init(values: [ArgValue], codingPath: [any CodingKey]) { self.values = values; self.codingPath = codingPath }

        mutating func next() throws -> (ArgValue, [any CodingKey]) {
            let path = codingPath + [Index(intValue: currentIndex)]
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(ArgValue.self, .init(codingPath: path, debugDescription: "past the end"))
            }
            defer { currentIndex += 1 }
            return (values[currentIndex], path)
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, values[currentIndex] == .null else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let (v, path) = try next()
            return try ArgDecoder.decode(type, from: v, path: path)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            throw mismatch([String: ArgValue].self, codingPath)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let (v, path) = try next()
            return try ArgDecoder(value: v, path: path).unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder {
            let (v, path) = try next()
            return ArgDecoder(value: v, path: path)
        }
    }

    struct Single: SingleValueDecodingContainer {
        let value: ArgValue
        let codingPath: [any CodingKey]
        func decodeNil() -> Bool { value == .null }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try ArgDecoder.decode(type, from: value, path: codingPath) }
    }

    struct Index: CodingKey {
        let intValue: Int?
        var stringValue: String { "\(intValue ?? 0)" }
        init(intValue: Int) { self.intValue = intValue }
        init?(stringValue: String) { nil }
    }

    /// One value as `type`: strings, whole numbers, numbers and flags directly (a whole number
    /// is also a number, a number is a whole number only when it is one), anything else
    /// through its own `init(from:)`.
    static func decode<T: Decodable>(_ type: T.Type, from value: ArgValue, path: [any CodingKey]) throws -> T {
        if value == .null, !(T.self is ExpressibleByNilLiteral.Type) {
            throw DecodingError.valueNotFound(type, .init(codingPath: path, debugDescription: "null"))
        }
        if T.self is ArgList.Type, value != .null {
            guard case .array = value else { throw mismatch(type, path) }
        }
        switch (value, type) {
        case (.string(let s), is String.Type): return s as! T
        case (.bool(let b), is Bool.Type): return b as! T
        case (.int(let i), is Int.Type): return i as! T
        case (.int(let i), is Double.Type): return Double(i) as! T
        case (.number(let d), is Double.Type): return d as! T
        case (.number(let d), is Int.Type):
            guard let i = Int(exactly: d) else { throw mismatch(type, path) }
            return i as! T
        case (.string, is Bool.Type), (.string, is Int.Type), (.string, is Double.Type), (.bool, is String.Type),
            (.bool, is Int.Type), (.bool, is Double.Type), (.int, is String.Type), (.int, is Bool.Type),
            (.number, is String.Type), (.number, is Bool.Type), (.array, is String.Type), (.array, is Bool.Type),
            (.array, is Int.Type), (.array, is Double.Type):
            throw mismatch(type, path)
        default:
            return try T(from: ArgDecoder(value: value, path: path))
        }
    }
}

/// Arrays: a value of another kind is a mismatch of the array type itself (its name in errors).
private protocol ArgList {}
extension Array: ArgList {}

private func mismatch(_ type: Any.Type, _ path: [any CodingKey]) -> DecodingError {
    DecodingError.typeMismatch(type, .init(codingPath: path, debugDescription: "another kind of value"))
}
