//! Which addresses a client metadata document may be fetched from (pure): public unicast only,
//! never loopback, private, link-local, shared (CGNAT), multicast, documentation or otherwise
//! reserved ranges, in IPv4 or IPv6, IPv4 inside IPv6 (mapped, compatible, NAT64, 6to4)
//! judged as the IPv4 it carries (RFC 9728 §7.7, the MCP security best practices on SSRF).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Whether `ip` is a public unicast address.
pub(crate) fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    let reserved = a == 0 // "this network"
        || a == 10
        || a == 127
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT)
        || (a == 169 && b == 254) // link-local (cloud metadata services)
        || (a == 172 && (16..32).contains(&b))
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 192 && b == 0 && c == 2) // documentation
        || (a == 192 && b == 88 && c == 99) // 6to4 relay anycast
        || (a == 192 && b == 168)
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || (a == 198 && b == 51 && c == 100) // documentation
        || (a == 203 && b == 0 && c == 113) // documentation
        || a >= 224; // multicast, reserved, broadcast
    !reserved
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let segments = ip.segments();
    // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d), judged as that IPv4.
    if let Some(v4) = ip.to_ipv4() {
        return !ip.is_loopback() && !ip.is_unspecified() && is_public_v4(v4);
    }
    let embedded = |high: u16, low: u16| Ipv4Addr::from((u32::from(high) << 16) | u32::from(low));
    match segments {
        // NAT64 (64:ff9b::/96): the IPv4 in the last 32 bits.
        [0x64, 0xff9b, 0, 0, 0, 0, high, low] => is_public_v4(embedded(high, low)),
        // 6to4 (2002::/16): the IPv4 in bits 16..48.
        [0x2002, high, low, ..] => is_public_v4(embedded(high, low)),
        // Teredo (2001::/32) tunnels to anywhere; documentation (2001:db8::/32).
        [0x2001, 0, ..] | [0x2001, 0xdb8, ..] => false,
        // Global unicast is 2000::/3; the rest (ULA fc00::/7, link-local fe80::/10,
        // multicast ff00::/8, loopback, unspecified, reserved) is not public.
        [first, ..] => (0x2000..0x4000).contains(&first),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn public(ip: &str) -> bool {
        is_public(ip.parse().unwrap())
    }

    #[test]
    fn public_unicast_only() {
        for ok in [
            "1.1.1.1",
            "8.8.8.8",
            "100.63.255.255",
            "100.128.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "192.169.0.1",
            "223.255.255.254",
            "2606:4700::1111",
            "2a00:1450:4001::200e",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:808:808::1",
        ] {
            assert!(public(ok), "{ok} is public");
        }
        for no in [
            "0.0.0.0",
            "0.1.2.3",
            "10.0.0.1",
            "100.64.0.1",
            "127.0.0.1",
            "127.255.255.254",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.8",
            "192.0.2.1",
            "192.168.1.1",
            "198.18.0.1",
            "198.51.100.1",
            "203.0.113.9",
            "224.0.0.1",
            "240.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::10.0.0.1",
            "64:ff9b::7f00:1",
            "2002:7f00:1::1",
            "2001::1",
            "2001:db8::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "ff02::1",
            "100::1",
        ] {
            assert!(!public(no), "{no} is not public");
        }
    }
}
