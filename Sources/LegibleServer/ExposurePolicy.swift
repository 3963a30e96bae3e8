internal import LegibleCore
internal import LegibleWire

/// Who can reach what the server opens: a TCP address other than loopback is reachable from
/// the network, so a listener there needs auth tokens (unless the operator says otherwise),
/// and /metrics there, which has no auth, is worth a warning.
enum ExposurePolicy {
    enum Decision {
        case allow
        /// Allowed, with this said in the log.
        case warn(String)
        case refuse(LegibleError)
    }

    static func listener(_ address: ServerAddress, tokensRequired: Bool, allowUnauthenticatedRemote: Bool) -> Decision {
        guard case .tcp(let host, _) = address, !ServerAddress.isLoopback(host: host), !tokensRequired else {
            return .allow
        }
        guard allowUnauthenticatedRemote else {
            return .refuse(
                LegibleError(
                    .failedPrecondition,
                    "refusing to listen on \(address) without --auth-token-file: anyone who can reach it could use "
                        + "this server; pass --allow-unauthenticated-remote to do it anyway"))
        }
        return .warn("listening on a non-loopback address without auth tokens")
    }

    /// What to log when /metrics is served at `address`; nil on loopback or a Unix socket.
    static func metricsWarning(_ address: ServerAddress) -> String? {
        guard case .tcp(let host, _) = address, !ServerAddress.isLoopback(host: host) else { return nil }
        return "serving /metrics on a non-loopback address: anyone who can reach it reads the server's metrics"
    }
}
