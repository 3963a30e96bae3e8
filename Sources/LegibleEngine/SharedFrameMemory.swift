internal import CLinux
internal import Glibc
internal import LegibleCore

/// Memory shared by legibled and one engine worker process: an anonymous file (memfd) that both
/// map, into which legibled writes the bytes of the frame it asks the worker to read (a frame's
/// encoded image, a handed-off frame's gray pixels) instead of sending them down the socketpair.
/// The request that names them still goes over the socketpair, and answers come back there.
///
/// One request is in flight per worker (legibled sends the next only after the answer to the
/// last, or after the worker has been killed), so the region has one writer at a time and needs
/// no lock: legibled writes it before a request, the worker copies out of it before answering.
/// Each worker, spares included, has a region of its own.
///
/// The file is sparse: only pages a frame has touched take memory. After a frame larger than
/// `keptBytes`, legibled gives the pages beyond that back (`releaseLargeFrame`).
final class SharedFrameMemory: @unchecked Sendable {
    /// The memfd (close-on-exec in legibled; the worker's copy is `WorkerCommand.sharedMemoryDescriptor`).
    let descriptor: Int32
    /// The region's size: the largest request's attachments it can carry.
    let capacity: Int
    private let base: UnsafeMutableRawPointer
    /// The bytes the last `write` wrote (legibled's side).
    private var written = 0

    /// Pages under this offset stay once touched (a camera's frames reuse them); beyond it they
    /// are given back after each frame that reached there.
    static let keptBytes = 4 << 20

    /// A new region of `capacity` bytes (legibled's side).
    init(capacity: Int) throws(LegibleError) {
        let closeOnExec: UInt32 = 1  // MFD_CLOEXEC
        let descriptor = legible_memfd_create(Self.name, closeOnExec)
        guard descriptor >= 0 else { throw LegibleError.system("memfd_create for an engine worker's frames") }
        guard ftruncate(descriptor, off_t(capacity)) == 0 else {
            close(descriptor)
            throw LegibleError.system("sizing an engine worker's shared frame memory")
        }
        self.descriptor = descriptor
        self.capacity = capacity
        base = try Self.map(descriptor, capacity)
    }

    /// The memfd's name, which the worker checks before it maps a descriptor.
    static let name = "legible-frames"

    /// The region legibled made, from its descriptor (the worker's side; its size from the file).
    /// Throws unless the descriptor is legibled's memfd (`/memfd:legible-frames`): a stray
    /// inherited descriptor of that number is not mapped.
    init(mapping descriptor: Int32) throws(LegibleError) {
        guard Self.isOurs(descriptor) else {
            throw LegibleError(.internal, "descriptor \(descriptor) is not legibled's shared frame memory")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size > 0 else {
            throw LegibleError.system("reading the size of the shared frame memory")
        }
        self.descriptor = descriptor
        capacity = Int(status.st_size)
        base = try Self.map(descriptor, capacity)
    }

    /// Whether `descriptor` is a memfd named `name` (its /proc link reads "/memfd:NAME (deleted)").
    static func isOurs(_ descriptor: Int32) -> Bool {
        var target = [CChar](repeating: 0, count: 256)
        let count = readlink("/proc/self/fd/\(descriptor)", &target, target.count - 1)
        guard count > 0 else { return false }
        let link = String(decoding: target[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return link.hasPrefix("/memfd:\(name)")
    }

    private static func map(_ descriptor: Int32, _ capacity: Int) throws(LegibleError) -> UnsafeMutableRawPointer {
        guard let base = mmap(nil, capacity, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), base != MAP_FAILED
        else {
            close(descriptor)
            throw LegibleError.system("mapping an engine worker's shared frame memory")
        }
        return base
    }

    deinit {
        munmap(base, capacity)
        close(descriptor)
    }

    /// Writes `parts` one after another from the region's start; false (and nothing written)
    /// when together they do not fit, so that the caller sends them inline instead.
    func write(_ parts: [[UInt8]]) -> Bool {
        let total = parts.reduce(0) { $0 + $1.count }
        guard total <= capacity else { return false }
        written = max(written, total)
        var offset = 0
        for part in parts {
            part.withUnsafeBytes { bytes in
                if let source = bytes.baseAddress { (base + offset).copyMemory(from: source, byteCount: bytes.count) }
            }
            offset += part.count
        }
        return true
    }

    /// Copies out the parts of these sizes written one after another from the region's start;
    /// nil when they would reach past its end.
    func read(sizes: [UInt32]) -> [[UInt8]]? {
        guard sizes.reduce(0, { $0 + Int($1) }) <= capacity else { return nil }
        var offset = 0
        return sizes.map { size in
            defer { offset += Int(size) }
            return Array(UnsafeRawBufferPointer(start: base + offset, count: Int(size)))
        }
    }

    /// Gives back the pages past `keptBytes` when a request written since the last call
    /// reached there (call once it has been answered): a single 16 MB raw frame must not hold
    /// 16 MB per worker for ever.
    func releaseLargeFrames() {
        defer { written = 0 }
        guard written > Self.keptBytes else { return }
        _ = madvise(base + Self.keptBytes, capacity - Self.keptBytes, MADV_REMOVE)
    }

    /// The bytes of memory the region holds now (its file's allocated blocks).
    var residentBytes: Int {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return 0 }
        return Int(status.st_blocks) * 512
    }
}
