import LegibleCore
import LegibleWire
import Testing

@testable import LegibleServer

/// What the server opens to the network: a listener off loopback needs tokens or the
/// operator's say-so; /metrics off loopback is said in the log.
@Suite("Exposure policy")
struct ExposurePolicyTests {
    @Test func loopbackAndUnixListenersNeedNothing() {
        for address in [
            ServerAddress.unix(path: "/tmp/x.sock"), .tcp(host: "127.0.0.1", port: 1), .tcp(host: "::1", port: 1),
        ] {
            guard
                case .allow = ExposurePolicy.listener(address, tokensRequired: false, allowUnauthenticatedRemote: false)
            else { return #expect(Bool(false), "\(address)") }
        }
    }

    @Test func aRemoteListenerWithoutTokensIsRefusedUnlessAllowed() {
        let address = ServerAddress.tcp(host: "0.0.0.0", port: 7480)
        guard
            case .refuse(let error) = ExposurePolicy.listener(
                address, tokensRequired: false, allowUnauthenticatedRemote: false)
        else { return #expect(Bool(false)) }
        #expect(error.code == .failedPrecondition && error.message.contains("--auth-token-file"))
        guard case .warn = ExposurePolicy.listener(address, tokensRequired: false, allowUnauthenticatedRemote: true)
        else {
            return #expect(Bool(false))
        }
        guard case .allow = ExposurePolicy.listener(address, tokensRequired: true, allowUnauthenticatedRemote: false)
        else {
            return #expect(Bool(false))
        }
        // Mutual TLS admits only clients with a certificate the client CA signed.
        guard
            case .allow = ExposurePolicy.listener(
                address, tokensRequired: false, mutualTLS: true, allowUnauthenticatedRemote: false)
        else {
            return #expect(Bool(false))
        }
    }

    @Test func metricsOffLoopbackNeedTheOperatorsSayAndAreWarnedAbout() {
        let remote = ServerAddress.tcp(host: "0.0.0.0", port: 9090)
        guard case .refuse(let error) = ExposurePolicy.metrics(remote, allowRemote: false) else {
            return #expect(Bool(false), "/metrics off loopback was not refused")
        }
        #expect(error.code == .failedPrecondition && error.message.contains("--allow-remote-metrics"))
        guard case .warn(let warning) = ExposurePolicy.metrics(remote, allowRemote: true) else {
            return #expect(Bool(false), "/metrics off loopback with the flag was not warned about")
        }
        #expect(warning.contains("/metrics"))
        for address in [ServerAddress.tcp(host: "127.0.0.1", port: 9090), .unix(path: "/tmp/m.sock")] {
            guard case .allow = ExposurePolicy.metrics(address, allowRemote: false) else {
                return #expect(Bool(false), "\(address)")
            }
        }
    }
}
