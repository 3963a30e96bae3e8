/// Which protocol a new connection speaks, told from its first bytes, so that one listener
/// serves both: HTTP/2 with prior knowledge opens with the client preface
/// `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`; Legible's framed protocol opens with a gRPC message
/// prefix, whose first byte is the compression flag, 0x00 or 0x01.
public enum ProtocolSniffer {
    public enum Verdict: Sendable, Hashable {
        case http2
        case framed
        /// Too few bytes yet to tell (a prefix of the HTTP/2 preface): read more.
        case undecided
        /// Neither: close the connection.
        case unknown
    }

    /// HTTP/2's client connection preface (RFC 9113, section 3.4).
    public static let http2Preface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    public static func verdict(_ firstBytes: some Collection<UInt8>) -> Verdict {
        guard let first = firstBytes.first else { return .undecided }
        if first == 0x00 || first == 0x01 { return .framed }
        let compared = min(firstBytes.count, http2Preface.count)
        guard firstBytes.prefix(compared).elementsEqual(http2Preface.prefix(compared)) else { return .unknown }
        return compared == http2Preface.count ? .http2 : .undecided
    }
}
