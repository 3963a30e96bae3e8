internal import Glibc

/// Which servers `legible-load` may aim at without `--allow-remote`: this machine only.
///
/// A load test is a denial of service by another name; pointing one at someone else's server
/// by a typo should take an explicit flag. A unix socket is local by nature; a TCP host must be
/// `localhost`, an IPv4 literal in 127.0.0.0/8, or `::1` (also as `::ffff:127.x.y.z`). Names
/// other than `localhost` are refused rather than resolved: what a name resolves to can change.
public enum TargetPolicy {
    public static func isLoopback(host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, name, &v4) == 1 {
            // s_addr is in network order: the first octet is its lowest byte in memory.
            return withUnsafeBytes(of: &v4) { $0[0] == 127 }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, name, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { bytes in
                let loopback = bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
                let mapped =
                    bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff && bytes[12] == 127
                return loopback || mapped
            }
        }
        return false
    }
}
