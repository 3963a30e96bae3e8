internal import CProtobufC

/// Owns every piece of C memory that one protobuf-c message tree needs while it is packed.
///
/// The generated structs hold raw pointers: `char *` strings, pointer-to-pointer arrays for
/// repeated messages, value arrays for repeated scalars, and a pointer per sub-message. All of
/// them must stay valid until `*__pack` returns, and none may outlive the encode call.
///
/// Why an arena rather than nested `withUnsafe…` scopes: every level of a result tree has a
/// variable number of children, each with strings and arrays of its own; scopes cannot nest
/// over that without a closure per string and per array, which is unreadable and slow. Why
/// not `malloc`/`strdup` per object with a list of what to free: a 500-word result with
/// symbols needs tens of thousands of small blocks (per symbol: a struct, a Rect, four Points,
/// a pointer array, a string, a candidate…). The arena bump-allocates them from slabs of up to
/// 64 KiB instead (that result fills a few dozen): one `deallocate` per slab in `deinit`, no
/// per-object bookkeeping, no chance to free one twice or forget one.
///
/// Everything stored here is a trivial C value (no Swift references), so nothing needs
/// deinitializing; memory regions are bound to their C type as they are handed out.
///
/// Use it through `EncodeArena.using(_:)`, which keeps the arena alive for the whole closure:
/// a plain local would let Swift end the arena's lifetime (and free the slabs) after its last
/// use, which can be *before* the pack call that reads the pointers.
///
/// Not `Sendable`: one arena belongs to one encode call on one thread.
final class EncodeArena {
    private var slabs: [UnsafeMutableRawPointer] = []
    private var cursor: UnsafeMutableRawPointer?
    private var remaining = 0
    private var nextSlabSize = 4096

    private static let slabAlignment = 16
    private static let maxSlabSize = 64 << 10

    private init() {}

    deinit {
        for slab in slabs { slab.deallocate() }
    }

    /// Runs `body` with a fresh arena that lives (and keeps its memory) until `body` returns.
    static func using<R>(_ body: (EncodeArena) -> R) -> R {
        let arena = EncodeArena()
        return withExtendedLifetime(arena) { body(arena) }
    }

    // MARK: Raw allocation

    /// `byteCount` bytes aligned to `alignment` (a power of two, at most 16).
    @inline(__always)
    private func allocate(byteCount: Int, alignment: Int) -> UnsafeMutableRawPointer {
        if let cursor {
            let mask = UInt(alignment - 1)
            let padding = Int((UInt(bitPattern: -Int(bitPattern: cursor))) & mask)
            if padding + byteCount <= remaining {
                let start = cursor + padding
                self.cursor = start + byteCount
                remaining -= padding + byteCount
                return start
            }
        }
        return allocateSlab(byteCount: byteCount)
    }

    /// Starts a new slab holding `byteCount` bytes at its (16-aligned) start. Sizes double up
    /// to 64 KiB, so a small message costs one small slab; the cap keeps slabs below malloc's
    /// mmap threshold, so a large result reuses heap pages instead of faulting in fresh ones on
    /// every encode. A request larger than the cap gets a slab of its own.
    private func allocateSlab(byteCount: Int) -> UnsafeMutableRawPointer {
        let size = max(nextSlabSize, byteCount)
        nextSlabSize = min(nextSlabSize * 2, Self.maxSlabSize)
        let slab = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: Self.slabAlignment)
        slabs.append(slab)
        cursor = slab + byteCount
        remaining = size - byteCount
        return slab
    }

    // MARK: Typed allocation

    /// A protobuf-c message struct, set to its defaults by the generated `*__init` function
    /// (the `*__INIT` macros do not import into Swift).
    func message<T>(_ initialize: (UnsafeMutablePointer<T>?) -> Void) -> UnsafeMutablePointer<T> {
        assert(MemoryLayout<T>.alignment <= Self.slabAlignment)
        let raw = allocate(byteCount: MemoryLayout<T>.stride, alignment: MemoryLayout<T>.alignment)
        let pointer = raw.bindMemory(to: T.self, capacity: 1)
        initialize(pointer)
        return pointer
    }

    /// `count` contiguous, uninitialized values of a trivial C type.
    func array<T>(of type: T.Type, count: Int) -> UnsafeMutablePointer<T> {
        assert(MemoryLayout<T>.alignment <= Self.slabAlignment)
        let raw = allocate(byteCount: MemoryLayout<T>.stride * count, alignment: MemoryLayout<T>.alignment)
        return raw.bindMemory(to: T.self, capacity: count)
    }

    /// A repeated scalar field: the count and a copy of the values (nil when empty).
    func values<Element, C>(_ elements: [Element], _ convert: (Element) -> C) -> (Int, UnsafeMutablePointer<C>?) {
        guard !elements.isEmpty else { return (0, nil) }
        let list = array(of: C.self, count: elements.count)
        for (index, element) in elements.enumerated() {
            (list + index).initialize(to: convert(element))
        }
        return (elements.count, list)
    }

    /// A repeated message field: the count and an array of pointers to the built messages.
    func messages<Element, C>(
        _ elements: [Element], _ build: (Element) -> UnsafeMutablePointer<C>
    ) -> (Int, UnsafeMutablePointer<UnsafeMutablePointer<C>?>?) {
        guard !elements.isEmpty else { return (0, nil) }
        let list = array(of: UnsafeMutablePointer<C>?.self, count: elements.count)
        for (index, element) in elements.enumerated() {
            (list + index).initialize(to: build(element))
        }
        return (elements.count, list)
    }

    /// A NUL-terminated UTF-8 copy of `string`.
    ///
    /// protobuf-c represents `string` fields as C strings, so a Swift string with an embedded
    /// NUL is cut at the NUL: the wire format could carry it, protobuf-c cannot.
    func cString(_ string: String) -> UnsafeMutablePointer<CChar> {
        var string = string
        return string.withUTF8 { utf8 in
            let raw = allocate(byteCount: utf8.count + 1, alignment: 1)
            if let base = utf8.baseAddress { raw.copyMemory(from: base, byteCount: utf8.count) }
            raw.storeBytes(of: 0, toByteOffset: utf8.count, as: UInt8.self)
            return raw.bindMemory(to: CChar.self, capacity: utf8.count + 1)
        }
    }

    /// Sets a singular `string` field. An empty string leaves the field as the generated
    /// `*__init` left it: `protobuf_c_empty_string`, which Swift cannot name (an incomplete C
    /// array does not import) and which pack skips in proto3 anyway.
    func set(_ field: inout UnsafeMutablePointer<CChar>!, _ string: String) {
        if !string.isEmpty { field = cString(string) }
    }

    /// A repeated string field; an empty element is a one-byte "" in the arena.
    func cStrings(_ strings: [String]) -> (Int, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) {
        values(strings) { Optional(cString($0)) }
    }
}
