internal import LegibleCore
internal import LegibleWire

/// Who can reach what the server opens: a TCP address other than loopback is reachable from
/// the network, so a listener there needs auth tokens or mutual TLS (only clients with a
/// certificate the client CA signed get in), and /metrics there, which has no auth, needs the
/// operator's say-so (`--allow-remote-metrics`: a Prometheus scrape or a Kubernetes probe from
/// another host); either is then said in the log.
enum ExposurePolicy {
    enum Decision {
        case allow
        /// Allowed, with this said in the log.
        case warn(String)
        case refuse(LegibleError)
    }

    static func listener(
        _ address: ServerAddress, tokensRequired: Bool, mutualTLS: Bool = false, allowUnauthenticatedRemote: Bool
    ) -> Decision {
        guard case .tcp(let host, _) = address, !ServerAddress.isLoopback(host: host), !tokensRequired, !mutualTLS
        else {
            return .allow
        }
        guard allowUnauthenticatedRemote else {
            return .refuse(
                LegibleError(
                    .failedPrecondition,
                    "refusing to listen on \(address) without --auth-token-file or --tls-client-ca: anyone who can reach "
                        + "it could use "
                        + "this server; pass --allow-unauthenticated-remote to do it anyway"))
        }
        return .warn("listening on a non-loopback address without auth tokens")
    }

    /// Whether /metrics, /healthz and /readyz may be served at `address` (they have no auth).
    static func metrics(_ address: ServerAddress, allowRemote: Bool) -> Decision {
        guard case .tcp(let host, _) = address, !ServerAddress.isLoopback(host: host) else { return .allow }
        guard allowRemote else {
            return .refuse(
                LegibleError(
                    .failedPrecondition,
                    "refusing to serve /metrics on \(address): it has no auth, so anyone who can reach it reads the "
                        + "server's metrics and health; pass --allow-remote-metrics to do it anyway"))
        }
        return .warn("serving /metrics on a non-loopback address: anyone who can reach it reads the server's metrics")
    }
}
