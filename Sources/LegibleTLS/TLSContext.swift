internal import COpenSSL
internal import Glibc
public import LegibleCore
public import LegibleSockets

/// A server's TLS setup (OpenSSL's `SSL_CTX`): its certificate chain and key, TLS 1.2 or later,
/// ALPN `h2` for gRPC clients, and with a client CA, mutual TLS (a client without a
/// certificate that CA signed fails the handshake). Immutable once made: reloading the
/// certificates makes a new context, and connections keep the one they began with.
public final class TLSContext: @unchecked Sendable {
    // @unchecked: an SSL_CTX is safe to share between threads once set up (OpenSSL's rule);
    // nothing here changes it after `init`.
    private let context: OpaquePointer

    /// Reads the PEM files; throws what is wrong with them (missing, unreadable, a key that
    /// does not match the certificate), with OpenSSL's reason.
    public init(certificateChain: String, privateKey: String, clientCA: String? = nil) throws(LegibleError) {
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw LegibleError(.internal, "TLS: cannot make a context: \(Self.lastError())")
        }
        self.context = context
        guard legible_ssl_ctx_require_tls12(context) == 1 else {
            throw LegibleError(.internal, "TLS: cannot require TLS 1.2: \(Self.lastError())")
        }
        legible_ssl_ctx_set_nonblocking_writes(context)
        legible_ssl_ctx_select_h2(context)
        guard SSL_CTX_use_certificate_chain_file(context, certificateChain) == 1 else {
            throw LegibleError(.invalidArgument, "--tls-cert \(certificateChain): \(Self.lastError())")
        }
        guard SSL_CTX_use_PrivateKey_file(context, privateKey, SSL_FILETYPE_PEM) == 1 else {
            throw LegibleError(.invalidArgument, "--tls-key \(privateKey): \(Self.lastError())")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw LegibleError(
                .invalidArgument, "--tls-key \(privateKey) does not match --tls-cert: \(Self.lastError())")
        }
        if let clientCA {
            guard SSL_CTX_load_verify_locations(context, clientCA, nil) == 1 else {
                throw LegibleError(.invalidArgument, "--tls-client-ca \(clientCA): \(Self.lastError())")
            }
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
        }
    }

    deinit { SSL_CTX_free(context) }

    /// A server session on `socket`, a connection just accepted (non-blocking): the handshake
    /// runs as its first bytes are read.
    public func serverSession(on socket: Socket) throws(LegibleError) -> TLSSession {
        let session = try TLSSession(owner: self, handle: context, descriptor: socket.descriptor)
        session.acceptAsServer()
        return session
    }

    /// OpenSSL's error queue, oldest first, emptied.
    static func lastError() -> String {
        var reasons: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return reasons.isEmpty ? "no reason given" : reasons.joined(separator: "; ")
    }
}

/// One TLS connection (OpenSSL's `SSL` on the socket's descriptor), as the socket's filter: the
/// transports read and write plaintext through the `Socket` as before. Non-blocking: a read or
/// write that needs the other direction first (the handshake) says "would block" and is tried
/// again on the next event.
public final class TLSSession: SocketFilter {
    fileprivate let ssl: OpaquePointer
    /// Keeps the context alive as long as the session (OpenSSL counts it too).
    private let owner: AnyObject

    fileprivate init(owner: AnyObject, handle: OpaquePointer, descriptor: Int32) throws(LegibleError) {
        guard let ssl = SSL_new(handle) else {
            throw LegibleError(.internal, "TLS: cannot make a session: \(TLSContext.lastError())")
        }
        self.ssl = ssl
        self.owner = owner
        guard SSL_set_fd(ssl, descriptor) == 1 else {
            throw LegibleError(.internal, "TLS: cannot attach the socket: \(TLSContext.lastError())")
        }
    }

    fileprivate func acceptAsServer() { SSL_set_accept_state(ssl) }

    deinit { SSL_free(ssl) }

    public func receive(into buffer: UnsafeMutableRawBufferPointer) throws(LegibleError) -> Int? {
        ERR_clear_error()
        let count = SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
        if count > 0 { return Int(count) }
        return try outcome(of: count, "read")
    }

    public func send(_ bytes: UnsafeRawBufferPointer) throws(LegibleError) -> Int {
        guard !bytes.isEmpty else { return 0 }
        ERR_clear_error()
        let count = SSL_write(ssl, bytes.baseAddress, Int32(clamping: bytes.count))
        if count > 0 { return Int(count) }
        return try outcome(of: count, "write") ?? 0
    }

    /// What a read or write that moved no bytes means: nil to wait (the handshake or a record
    /// needs more bytes, or room to write), 0 at the end of the stream, else an error.
    private func outcome(of result: Int32, _ operation: String) throws(LegibleError) -> Int? {
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return nil
        case SSL_ERROR_ZERO_RETURN:
            return 0  // the peer's close_notify
        case SSL_ERROR_SYSCALL where errno == 0 || errno == ECONNRESET || errno == EPIPE:
            return 0  // the peer went away without close_notify
        case SSL_ERROR_SYSCALL:
            throw .system("TLS \(operation)")
        default:
            throw LegibleError(.unavailable, "TLS \(operation): \(TLSContext.lastError())")
        }
    }

    public func shutdown() {
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
    }

    public var hasBufferedInput: Bool { SSL_pending(ssl) > 0 }
}

/// A client's TLS setup (`legible --tls-ca`, `legible-load --tls-ca`): the CA that signs the
/// server's certificate, the server's name checked against it, optionally a certificate of the
/// client's own for mutual TLS, and ALPN `h2` when the client speaks gRPC.
public final class TLSClientContext: @unchecked Sendable {
    // @unchecked: as TLSContext, set up once and then only read.
    private let context: OpaquePointer

    public init(certificateAuthority: String, certificateChain: String? = nil, privateKey: String? = nil, http2: Bool)
        throws(LegibleError)
    {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw LegibleError(.internal, "TLS: cannot make a context: \(TLSContext.lastError())")
        }
        self.context = context
        guard legible_ssl_ctx_require_tls12(context) == 1 else {
            throw LegibleError(.internal, "TLS: cannot require TLS 1.2: \(TLSContext.lastError())")
        }
        legible_ssl_ctx_set_nonblocking_writes(context)
        guard SSL_CTX_load_verify_locations(context, certificateAuthority, nil) == 1 else {
            throw LegibleError(.invalidArgument, "--tls-ca \(certificateAuthority): \(TLSContext.lastError())")
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        if let certificateChain, let privateKey {
            guard SSL_CTX_use_certificate_chain_file(context, certificateChain) == 1,
                SSL_CTX_use_PrivateKey_file(context, privateKey, SSL_FILETYPE_PEM) == 1,
                SSL_CTX_check_private_key(context) == 1
            else {
                throw LegibleError(
                    .invalidArgument, "--tls-cert/--tls-key \(certificateChain): \(TLSContext.lastError())")
            }
        }
        if http2 {
            let h2: [UInt8] = [2, UInt8(ascii: "h"), UInt8(ascii: "2")]
            // 0 is success here (unlike the rest of OpenSSL's API).
            guard SSL_CTX_set_alpn_protos(context, h2, UInt32(h2.count)) == 0 else {
                throw LegibleError(.internal, "TLS: cannot offer ALPN h2: \(TLSContext.lastError())")
            }
        }
    }

    deinit { SSL_CTX_free(context) }

    private static func isAddress(_ host: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1
    }

    /// A client session on `socket` (connected, blocking): the handshake runs now, and the
    /// server's certificate must be valid for `serverName`.
    ///
    /// - Throws: `.unavailable` with OpenSSL's reason when the handshake fails (an unknown
    ///   CA, a name that does not match, a server that wants a client certificate).
    public func clientSession(on socket: Socket, serverName: String) throws(LegibleError) -> TLSSession {
        let session = try TLSSession(owner: self, handle: context, descriptor: socket.descriptor)
        // An address (tcp:127.0.0.1:…) is checked against the certificate's IP addresses and
        // sent without SNI (which names hosts only); a name against its DNS names.
        let named =
            Self.isAddress(serverName)
            ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(session.ssl), serverName) == 1
            : legible_ssl_set_server_name(session.ssl, serverName) == 1 && SSL_set1_host(session.ssl, serverName) == 1
        guard named else {
            throw LegibleError(.internal, "TLS: cannot set the server name: \(TLSContext.lastError())")
        }
        ERR_clear_error()
        guard SSL_connect(session.ssl) == 1 else {
            throw LegibleError(.unavailable, "TLS handshake with \(serverName) failed: \(TLSContext.lastError())")
        }
        return session
    }
}
