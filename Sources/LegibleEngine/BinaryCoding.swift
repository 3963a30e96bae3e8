/// A compact binary form of `Codable` values, for the messages between legibled and its engine
/// workers: both ends are the same binary, so the form needs no schema, no versions and no
/// text. Foundation's JSON coders spent ~1.4 ms on one frame's answer (its boxes and
/// confidences as decimal text, parsed back); this writes and reads the numbers' bytes.
///
/// Every value is a *slot*: a u32 length (`BinaryCoding.nilLength` for nil) and that many bytes.
///
/// - integers, floating-point numbers, Bool: their own width, little-endian (a Float is its bits)
/// - String: its UTF-8; `[UInt8]`: its bytes
/// - a keyed container: entries of u8 key length, the key's UTF-8, the value's slot
/// - an unkeyed container: u32 count, then that many slots
///
/// Containers are written where they are asked for, so a nested container must be filled before
/// its parent is written to again (as synthesized `Codable` does); writing to a container whose
/// slot has closed stops the process rather than writing a wrong message.
enum BinaryCoding {
    static let nilLength = UInt32.max
}

/// A value's coding path as a chain of keys: a nested value's is its container's and one more
/// key, one small object, where an array would copy every key above it. Made into the array
/// `Encoder`/`Decoder` promise only when something asks for it (an error, mostly); primitive
/// fields get none at all.
final class BinaryCodingPath {
    let parent: BinaryCodingPath?
    let key: (any CodingKey)?

    /// A message's top value's (one per message: a shared one would have to be `Sendable`).
    static var root: BinaryCodingPath { BinaryCodingPath(parent: nil, key: nil) }

    private init(parent: BinaryCodingPath?, key: (any CodingKey)?) {
        (self.parent, self.key) = (parent, key)
    }

    func appending(_ key: any CodingKey) -> BinaryCodingPath { BinaryCodingPath(parent: self, key: key) }

    var keys: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node: BinaryCodingPath? = self
        while let current = node, let key = current.key {
            keys.append(key)
            node = current.parent
        }
        return keys.reversed()
    }
}

// MARK: - Values written as their bytes

/// A value written as its own bytes in its slot, not as a container.
protocol BinaryPrimitive {
    /// Appends the value's bytes (its slot's content, not its length).
    func append(to bytes: inout [UInt8])
    /// The value from exactly the bytes of its slot; nil when they are not one.
    static func read(_ bytes: ArraySlice<UInt8>) -> Self?
}

extension BinaryPrimitive where Self: FixedWidthInteger {
    func append(to bytes: inout [UInt8]) { withUnsafeBytes(of: littleEndian) { bytes.append(contentsOf: $0) } }
    static func read(_ bytes: ArraySlice<UInt8>) -> Self? {
        guard bytes.count == MemoryLayout<Self>.size else { return nil }
        return Self(littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(as: Self.self) })
    }
}

extension Int: BinaryPrimitive {}
extension Int8: BinaryPrimitive {}
extension Int16: BinaryPrimitive {}
extension Int32: BinaryPrimitive {}
extension Int64: BinaryPrimitive {}
extension UInt: BinaryPrimitive {}
extension UInt8: BinaryPrimitive {}
extension UInt16: BinaryPrimitive {}
extension UInt32: BinaryPrimitive {}
extension UInt64: BinaryPrimitive {}

extension Bool: BinaryPrimitive {
    func append(to bytes: inout [UInt8]) { bytes.append(self ? 1 : 0) }
    static func read(_ bytes: ArraySlice<UInt8>) -> Bool? {
        guard bytes.count == 1, let byte = bytes.first, byte <= 1 else { return nil }
        return byte == 1
    }
}

extension Float: BinaryPrimitive {
    func append(to bytes: inout [UInt8]) { bitPattern.append(to: &bytes) }
    static func read(_ bytes: ArraySlice<UInt8>) -> Float? { UInt32.read(bytes).map(Float.init(bitPattern:)) }
}

extension Double: BinaryPrimitive {
    func append(to bytes: inout [UInt8]) { bitPattern.append(to: &bytes) }
    static func read(_ bytes: ArraySlice<UInt8>) -> Double? { UInt64.read(bytes).map(Double.init(bitPattern:)) }
}

extension String: BinaryPrimitive {
    func append(to bytes: inout [UInt8]) { bytes.append(contentsOf: utf8) }
    static func read(_ bytes: ArraySlice<UInt8>) -> String? { String(validating: bytes, as: UTF8.self) }
}

extension Array: BinaryPrimitive where Element == UInt8 {
    func append(to bytes: inout [UInt8]) { bytes.append(contentsOf: self) }
    static func read(_ bytes: ArraySlice<UInt8>) -> [UInt8]? { Array(bytes) }
}

// MARK: - Encoding

struct BinaryMessageEncoder {
    var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        let writer = BinaryWriter(userInfo: userInfo)
        try writer.write(value, path: .root)
        writer.close(downTo: 0)
        return writer.bytes
    }
}

/// The bytes of one message being written, and the slots still open in it (a slot's length is
/// written when it closes).
///
/// Its state is unchecked for exclusive access: one coder on one thread touches it, in calls
/// that never overlap, and the run-time checks were a tenth of a frame answer's encoding.
final class BinaryWriter {
    @exclusivity(unchecked) private(set) var bytes: [UInt8] = []
    let userInfo: [CodingUserInfoKey: Any]
    @exclusivity(unchecked) private var openSlots: [(lengthAt: Int, id: Int, isNil: Bool)] = []
    @exclusivity(unchecked) private var lastID = 0

    init(userInfo: [CodingUserInfoKey: any Sendable]) {
        self.userInfo = userInfo
        bytes.reserveCapacity(4096)
    }

    /// Writes `value`'s slot at the end of the message.
    func write<Value: Encodable>(_ value: Value, path: BinaryCodingPath) throws {
        if let primitive = value as? any BinaryPrimitive {
            writePrimitive(primitive)
            return
        }
        let depth = openSlots.count
        let id = openSlot()
        try value.encode(to: BinaryValueEncoder(writer: self, depth: depth + 1, slot: id, path: path))
        close(downTo: depth)
    }

    /// Writes a primitive's slot at the end of the message. Generic, so each type's call is
    /// specialized: no existential and no dynamic cast, which the containers' overloads for
    /// the standard types rely on (most of a frame's answer is numbers and short strings).
    func writePrimitive<Primitive: BinaryPrimitive>(_ primitive: Primitive) {
        let lengthAt = bytes.count
        appendFixedWidth(UInt32.zero)
        primitive.append(to: &bytes)
        store(UInt32(bytes.count - lengthAt - 4), at: lengthAt)
    }

    /// Opens a slot whose length is written when it closes; returns its identity.
    func openSlot() -> Int {
        lastID += 1
        openSlots.append((bytes.count, lastID, false))
        appendFixedWidth(UInt32.zero)
        return lastID
    }

    /// Closes the slots opened inside the one at `depth` (0: all of them).
    func close(downTo depth: Int) {
        while openSlots.count > depth {
            let slot = openSlots.removeLast()
            let length = slot.isNil ? BinaryCoding.nilLength : UInt32(bytes.count - slot.lengthAt - 4)
            store(length, at: slot.lengthAt)
        }
    }

    /// Readies a container of the slot `id` at `depth` for writing: the slots opened inside it
    /// close, and it must itself still be open.
    func prepare(depth: Int, slot id: Int) {
        close(downTo: depth)
        precondition(
            openSlots.count == depth && openSlots[depth - 1].id == id,
            "a binary message's container was written to after its slot closed")
    }

    /// Marks the slot at `depth` as nil (its bytes, none, are ignored).
    func markNil(depth: Int, slot id: Int) {
        prepare(depth: depth, slot: id)
        openSlots[depth - 1].isNil = true
    }

    func appendKey(_ key: any CodingKey) {
        var name = key.stringValue
        name.withUTF8 { utf8 in
            precondition(utf8.count <= UInt8.max, "a coding key longer than 255 bytes")
            bytes.append(UInt8(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    func appendNilSlot() { appendFixedWidth(BinaryCoding.nilLength) }

    /// Appends a primitive's bytes as the content of the innermost open slot.
    func appendContent(_ primitive: any BinaryPrimitive) { primitive.append(to: &bytes) }

    func appendFixedWidth<Number: FixedWidthInteger>(_ number: Number) {
        withUnsafeBytes(of: number.littleEndian) { bytes.append(contentsOf: $0) }
    }

    func store(_ number: UInt32, at offset: Int) {
        withUnsafeBytes(of: number.littleEndian) { littleEndian in
            for index in 0..<4 { bytes[offset + index] = littleEndian[index] }
        }
    }
}

private struct BinaryValueEncoder: Encoder {
    let writer: BinaryWriter
    /// How many slots are open while this value's is the innermost (its own included).
    let depth: Int
    let slot: Int
    let path: BinaryCodingPath
    var codingPath: [any CodingKey] { path.keys }
    var userInfo: [CodingUserInfoKey: Any] { writer.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        writer.prepare(depth: depth, slot: slot)
        return KeyedEncodingContainer(
            BinaryKeyedEncoder<Key>(writer: writer, depth: depth, slot: slot, path: path))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        writer.prepare(depth: depth, slot: slot)
        return BinaryUnkeyedEncoder(writer: writer, depth: depth, slot: slot, path: path)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }
}

extension BinaryValueEncoder: SingleValueEncodingContainer {
    mutating func encodeNil() throws { writer.markNil(depth: depth, slot: slot) }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        writer.prepare(depth: depth, slot: slot)
        if let primitive = value as? any BinaryPrimitive {
            // The value's bytes are this slot's: no slot of their own.
            writer.appendContent(primitive)
        } else {
            try value.encode(to: self)
        }
    }
}

private struct BinaryKeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: BinaryWriter
    let depth: Int
    let slot: Int
    let path: BinaryCodingPath
    var codingPath: [any CodingKey] { path.keys }

    mutating func encodeNil(forKey key: Key) throws {
        writer.prepare(depth: depth, slot: slot)
        writer.appendKey(key)
        writer.appendNilSlot()
    }

    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        writer.prepare(depth: depth, slot: slot)
        writer.appendKey(key)
        try writer.write(value, path: path.appending(key))
    }

    // The standard types, which synthesized `Codable` asks for by name: written without the
    // generic path's dynamic cast and coding path (a frame's answer has thousands of them).
    private mutating func primitive<Primitive: BinaryPrimitive>(_ value: Primitive, forKey key: Key) {
        writer.prepare(depth: depth, slot: slot)
        writer.appendKey(key)
        writer.writePrimitive(value)
    }
    mutating func encode(_ value: Bool, forKey key: Key) throws { primitive(value, forKey: key) }
    mutating func encode(_ value: String, forKey key: Key) throws { primitive(value, forKey: key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { primitive(value, forKey: key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { primitive(value, forKey: key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { primitive(value, forKey: key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { primitive(value, forKey: key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { primitive(value, forKey: key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { primitive(value, forKey: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { primitive(value, forKey: key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { primitive(value, forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { primitive(value, forKey: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { primitive(value, forKey: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { primitive(value, forKey: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { primitive(value, forKey: key) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let nested = nestedEncoder(forKey: key)
        return nested.container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        nestedEncoder(forKey: key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { nestedEncoder(forKey: BinaryIndexKey.super) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { nestedEncoder(forKey: key) }

    private func nestedEncoder(forKey key: any CodingKey) -> BinaryValueEncoder {
        writer.prepare(depth: depth, slot: slot)
        writer.appendKey(key)
        let id = writer.openSlot()
        return BinaryValueEncoder(writer: writer, depth: depth + 1, slot: id, path: path.appending(key))
    }
}

private struct BinaryUnkeyedEncoder: UnkeyedEncodingContainer {
    let writer: BinaryWriter
    let depth: Int
    let slot: Int
    let path: BinaryCodingPath
    var codingPath: [any CodingKey] { path.keys }
    private(set) var count = 0
    private let countAt: Int

    init(writer: BinaryWriter, depth: Int, slot: Int, path: BinaryCodingPath) {
        (self.writer, self.depth, self.slot, self.path) = (writer, depth, slot, path)
        countAt = writer.bytes.count
        writer.appendFixedWidth(UInt32.zero)
    }

    /// Readies the container for its next element.
    private mutating func next() {
        writer.prepare(depth: depth, slot: slot)
        count += 1
        writer.store(UInt32(count), at: countAt)
    }

    mutating func encodeNil() throws {
        next()
        writer.appendNilSlot()
    }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        next()
        try writer.write(value, path: path.appending(BinaryIndexKey.index(count - 1)))
    }

    private mutating func primitive<Primitive: BinaryPrimitive>(_ value: Primitive) {
        next()
        writer.writePrimitive(value)
    }
    mutating func encode(_ value: Bool) throws { primitive(value) }
    mutating func encode(_ value: String) throws { primitive(value) }
    mutating func encode(_ value: Double) throws { primitive(value) }
    mutating func encode(_ value: Float) throws { primitive(value) }
    mutating func encode(_ value: Int) throws { primitive(value) }
    mutating func encode(_ value: Int8) throws { primitive(value) }
    mutating func encode(_ value: Int16) throws { primitive(value) }
    mutating func encode(_ value: Int32) throws { primitive(value) }
    mutating func encode(_ value: Int64) throws { primitive(value) }
    mutating func encode(_ value: UInt) throws { primitive(value) }
    mutating func encode(_ value: UInt8) throws { primitive(value) }
    mutating func encode(_ value: UInt16) throws { primitive(value) }
    mutating func encode(_ value: UInt32) throws { primitive(value) }
    mutating func encode(_ value: UInt64) throws { primitive(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        nestedEncoder().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { nestedEncoder().unkeyedContainer() }

    mutating func superEncoder() -> any Encoder { nestedEncoder() }

    private mutating func nestedEncoder() -> BinaryValueEncoder {
        next()
        let id = writer.openSlot()
        return BinaryValueEncoder(
            writer: writer, depth: depth + 1, slot: id, path: path.appending(BinaryIndexKey.index(count - 1)))
    }
}

/// The coding-path keys of array elements and superclass values.
private enum BinaryIndexKey: CodingKey {
    case index(Int)
    case `super`

    var stringValue: String {
        switch self {
        case .index(let index): "Index \(index)"
        case .super: "super"
        }
    }
    var intValue: Int? {
        if case .index(let index) = self { index } else { nil }
    }
    init?(stringValue: String) {
        guard stringValue == "super" else { return nil }
        self = .super
    }
    init?(intValue: Int) { self = .index(intValue) }
}

// MARK: - Decoding

struct BinaryMessageDecoder {
    var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    func decode<Value: Decodable>(_ type: Value.Type, from bytes: ArraySlice<UInt8>) throws -> Value {
        let reader = BinaryReader(bytes: bytes, userInfo: userInfo)
        let root = BinaryCodingPath.root
        let (slot, end) = try reader.slot(at: bytes.startIndex, limit: bytes.endIndex, path: root)
        guard end == bytes.endIndex else { throw reader.corrupted(root, "bytes after the message's value") }
        return try reader.read(type, from: slot, path: root)
    }
}

/// A value's bytes within the message (`isNil`: the value is nil and has none).
struct BinarySlot {
    var range: Range<Int>
    var isNil: Bool
}

final class BinaryReader {
    let bytes: ArraySlice<UInt8>
    let userInfo: [CodingUserInfoKey: Any]

    init(bytes: ArraySlice<UInt8>, userInfo: [CodingUserInfoKey: any Sendable]) {
        (self.bytes, self.userInfo) = (bytes, userInfo)
    }

    func read<Value: Decodable>(_ type: Value.Type, from slot: BinarySlot, path: BinaryCodingPath) throws -> Value {
        if let primitive = type as? any BinaryPrimitive.Type {
            return try readPrimitive(primitive, from: slot) { path.keys } as! Value
        }
        return try Value(from: BinaryValueDecoder(reader: self, slot: slot, path: path))
    }

    /// A primitive from its slot, specialized per type; `codingPath` is asked for only when
    /// the bytes are not one.
    func readPrimitive<Primitive: BinaryPrimitive>(
        _ type: Primitive.Type, from slot: BinarySlot, codingPath: () -> [any CodingKey]
    ) throws -> Primitive {
        guard !slot.isNil else {
            throw DecodingError.valueNotFound(
                type, .init(codingPath: codingPath(), debugDescription: "nil where a value was expected"))
        }
        guard let value = Primitive.read(bytes[slot.range]) else {
            throw DecodingError.typeMismatch(
                type, .init(codingPath: codingPath(), debugDescription: "\(slot.range.count) bytes are not one"))
        }
        return value
    }

    /// The slot at `offset`, and where the next begins; `path` is the container's, for an error.
    func slot(at offset: Int, limit: Int, path: BinaryCodingPath) throws -> (BinarySlot, next: Int) {
        let length = try number(at: offset, limit: limit, path: path)
        guard length == BinaryCoding.nilLength || Int(length) <= limit - offset - 4 else {
            throw corrupted(path, "a value longer than its container")
        }
        return checkedSlot(at: offset)
    }

    /// The slot at `offset`, whose length and bytes were checked to lie within its container.
    func checkedSlot(at offset: Int) -> (BinarySlot, next: Int) {
        let length = UInt32.read(bytes[offset..<offset + 4])!
        let start = offset + 4
        if length == BinaryCoding.nilLength { return (BinarySlot(range: start..<start, isNil: true), start) }
        return (BinarySlot(range: start..<start + Int(length), isNil: false), start + Int(length))
    }

    func number(at offset: Int, limit: Int, path: BinaryCodingPath) throws -> UInt32 {
        guard offset + 4 <= limit else { throw corrupted(path, "a message cut short") }
        return UInt32.read(bytes[offset..<offset + 4])!
    }

    func corrupted(_ path: BinaryCodingPath, _ description: String) -> DecodingError {
        DecodingError.dataCorrupted(.init(codingPath: path.keys, debugDescription: description))
    }
}

private struct BinaryValueDecoder: Decoder {
    let reader: BinaryReader
    let slot: BinarySlot
    let path: BinaryCodingPath
    var codingPath: [any CodingKey] { path.keys }
    var userInfo: [CodingUserInfoKey: Any] { reader.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try requireValue(KeyedDecodingContainer<Key>.self)
        return KeyedDecodingContainer(try BinaryKeyedDecoder<Key>(reader: reader, slot: slot, path: path))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try requireValue((any UnkeyedDecodingContainer).self)
        return try BinaryUnkeyedDecoder(reader: reader, slot: slot, path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    private func requireValue<Container>(_ type: Container.Type) throws {
        guard !slot.isNil else {
            throw DecodingError.valueNotFound(
                type, .init(codingPath: codingPath, debugDescription: "nil where a container was expected"))
        }
    }
}

extension BinaryValueDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { slot.isNil }

    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        if type is any BinaryPrimitive.Type { return try reader.read(type, from: slot, path: path) }
        return try Value(from: self)
    }
}

/// A keyed container read in place: its entries are checked once when it opens and looked up
/// in its bytes, from the one after the last found (synthesized `Decodable` asks for the keys in
/// the order synthesized `Encodable` wrote them), so a lookup is one comparison most of the
/// time and the container keeps no list of its entries. A class, for that cursor.
private final class BinaryKeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let reader: BinaryReader
    let path: BinaryCodingPath
    var codingPath: [any CodingKey] { path.keys }
    private let range: Range<Int>
    /// Where the next lookup starts: the entry after the last one found (unchecked for exclusive
    /// access, as `BinaryWriter`'s state).
    @exclusivity(unchecked) private var cursor: Int

    /// One entry: its key's bytes, its value's slot, and where the next entry begins.
    private typealias Entry = (key: Range<Int>, value: BinarySlot, next: Int)

    init(reader: BinaryReader, slot: BinarySlot, path: BinaryCodingPath) throws {
        (self.reader, self.path, self.range, self.cursor) = (reader, path, slot.range, slot.range.lowerBound)
        var offset = range.lowerBound
        while offset < range.upperBound { offset = try entry(at: offset).next }
    }

    private func entry(at offset: Int) throws -> Entry {
        let keyLength = Int(reader.bytes[offset])
        let key = offset + 1..<offset + 1 + keyLength
        guard key.upperBound <= range.upperBound else {
            throw reader.corrupted(path, "a key longer than its container")
        }
        let (value, next) = try reader.slot(at: key.upperBound, limit: range.upperBound, path: path)
        return (key, value, next)
    }

    /// The entry at `offset`, which `init` checked: its parts without the checks.
    private func checkedEntry(at offset: Int) -> Entry {
        let keyEnd = offset + 1 + Int(reader.bytes[offset])
        let (value, next) = reader.checkedSlot(at: keyEnd)
        return (offset + 1..<keyEnd, value, next)
    }

    var allKeys: [Key] {
        var keys: [Key] = []
        var offset = range.lowerBound
        while offset < range.upperBound {
            let entry = checkedEntry(at: offset)
            if let key = Key(stringValue: String(decoding: reader.bytes[entry.key], as: UTF8.self)) { keys.append(key) }
            offset = entry.next
        }
        return keys
    }

    private func slot(_ key: Key) -> BinarySlot? {
        var name = key.stringValue
        return name.withUTF8 { name in
            // From the cursor to the end, then from the start to the cursor.
            var offset = cursor
            var wrapped = false
            while true {
                if offset >= range.upperBound {
                    if wrapped || cursor == range.lowerBound { return nil }
                    (offset, wrapped) = (range.lowerBound, true)
                }
                if wrapped, offset >= cursor { return nil }
                let entry = checkedEntry(at: offset)
                if reader.bytes[entry.key].elementsEqual(name) {
                    cursor = entry.next
                    return entry.value
                }
                offset = entry.next
            }
        }
    }

    private func existingSlot(_ key: Key) throws -> BinarySlot {
        guard let slot = slot(key) else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "no value for \(key.stringValue)"))
        }
        return slot
    }

    func contains(_ key: Key) -> Bool { slot(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool { try existingSlot(key).isNil }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try reader.read(type, from: try existingSlot(key), path: path.appending(key))
    }

    func decodeIfPresent<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value? {
        guard let slot = slot(key), !slot.isNil else { return nil }
        return try reader.read(type, from: slot, path: path.appending(key))
    }

    // The standard types by name (see the keyed encoder): one lookup, no dynamic cast, and a
    // coding path only for an error.
    private func primitive<Primitive: BinaryPrimitive>(_ type: Primitive.Type, forKey key: Key) throws -> Primitive {
        try reader.readPrimitive(type, from: try existingSlot(key)) { self.path.appending(key).keys }
    }
    private func primitiveIfPresent<Primitive: BinaryPrimitive>(_ type: Primitive.Type, forKey key: Key) throws
        -> Primitive?
    {
        guard let slot = slot(key), !slot.isNil else { return nil }
        return try reader.readPrimitive(type, from: slot) { self.path.appending(key).keys }
    }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try primitive(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try primitive(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try primitive(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try primitive(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try primitive(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try primitive(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try primitive(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try primitive(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try primitive(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try primitive(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try primitive(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try primitive(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try primitive(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try primitive(type, forKey: key) }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try primitiveIfPresent(type, forKey: key)
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try primitiveIfPresent(type, forKey: key)
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try primitiveIfPresent(type, forKey: key)
    }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try primitiveIfPresent(type, forKey: key)
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try primitiveIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try primitiveIfPresent(type, forKey: key)
    }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try primitiveIfPresent(type, forKey: key)
    }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try primitiveIfPresent(type, forKey: key)
    }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try primitiveIfPresent(type, forKey: key)
    }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try primitiveIfPresent(type, forKey: key)
    }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try primitiveIfPresent(type, forKey: key)
    }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try primitiveIfPresent(type, forKey: key)
    }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try primitiveIfPresent(type, forKey: key)
    }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try primitiveIfPresent(type, forKey: key)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try nestedDecoder(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try nestedDecoder(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        guard let key = Key(stringValue: BinaryIndexKey.super.stringValue) else {
            throw reader.corrupted(path, "no key for a superclass's value")
        }
        return try nestedDecoder(key)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder { try nestedDecoder(key) }

    private func nestedDecoder(_ key: Key) throws -> BinaryValueDecoder {
        BinaryValueDecoder(reader: reader, slot: try existingSlot(key), path: path.appending(key))
    }
}

private struct BinaryUnkeyedDecoder: UnkeyedDecodingContainer {
    let reader: BinaryReader
    let path: BinaryCodingPath
    var codingPath: [any CodingKey] { path.keys }
    let count: Int?
    private(set) var currentIndex = 0
    private var offset: Int
    private let limit: Int

    init(reader: BinaryReader, slot: BinarySlot, path: BinaryCodingPath) throws {
        (self.reader, self.path) = (reader, path)
        count = Int(try reader.number(at: slot.range.lowerBound, limit: slot.range.upperBound, path: path))
        offset = slot.range.lowerBound + 4
        limit = slot.range.upperBound
    }

    var isAtEnd: Bool { currentIndex >= count! }

    /// The current element's path: made for a nested value or an error, not for a primitive.
    private var elementPath: BinaryCodingPath { path.appending(BinaryIndexKey.index(currentIndex)) }

    /// The next element's slot, without moving past it.
    private func peek<Value>(_ type: Value.Type) throws -> (BinarySlot, next: Int) {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type, .init(codingPath: elementPath.keys, debugDescription: "past the end of a list"))
        }
        return try reader.slot(at: offset, limit: limit, path: path)
    }

    mutating func decodeNil() throws -> Bool {
        let (slot, next) = try peek(Never?.self)
        guard slot.isNil else { return false }
        (offset, currentIndex) = (next, currentIndex + 1)
        return true
    }

    mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        let (slot, next) = try peek(type)
        let value = try reader.read(type, from: slot, path: elementPath)
        (offset, currentIndex) = (next, currentIndex + 1)
        return value
    }

    private mutating func primitive<Primitive: BinaryPrimitive>(_ type: Primitive.Type) throws -> Primitive {
        let (slot, next) = try peek(type)
        let value = try reader.readPrimitive(type, from: slot) { elementPath.keys }
        (offset, currentIndex) = (next, currentIndex + 1)
        return value
    }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try primitive(type) }
    mutating func decode(_ type: String.Type) throws -> String { try primitive(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try primitive(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try primitive(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try primitive(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try primitive(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try primitive(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try primitive(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try primitive(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try primitive(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try primitive(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try primitive(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try primitive(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try primitive(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try nextDecoder().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try nextDecoder().unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try nextDecoder() }

    private mutating func nextDecoder() throws -> BinaryValueDecoder {
        let (slot, next) = try peek(BinaryValueDecoder.self)
        let decoder = BinaryValueDecoder(reader: reader, slot: slot, path: elementPath)
        (offset, currentIndex) = (next, currentIndex + 1)
        return decoder
    }
}
