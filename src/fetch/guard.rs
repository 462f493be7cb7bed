//! Refuses addresses a stranger's URL must not reach: loopback, private, link-local,
//! unique-local, CGNAT, multicast, unspecified, documentation and broadcast ranges, and
//! the IPv4-mapped/compatible IPv6 forms of those.
//!
//! The check runs on the addresses actually connected to: the fetcher's resolver
//! ([`super::dns::CachingResolver`]) drops refused addresses from every DNS answer (so
//! DNS rebinding cannot slip one in), and [`check_host`] covers hosts written as IP
//! literals, which reqwest connects to without asking the resolver. The fetcher follows
//! redirects itself and runs both on every hop; it also ignores proxy settings, since a
//! proxy would connect on our behalf to addresses we never see.

use std::net::{IpAddr, Ipv4Addr};

/// Whether `ip` is a public unicast address that sitefeed may fetch from.
pub(crate) fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public_v4(v4);
            }
            let seg = v6.segments();
            // ::a.b.c.d (deprecated IPv4-compatible form)
            if seg[..6].iter().all(|&s| s == 0) {
                return false;
            }
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (seg[0] & 0xfe00) == 0xfc00 // unique local fc00::/7
                || (seg[0] & 0xffc0) == 0xfe80 // link-local fe80::/10
                || (seg[0] & 0xffc0) == 0xfec0 // site-local (deprecated)
                || seg[0] == 0x2001 && seg[1] == 0x0db8 // documentation
                || seg[0] == 0x0064 && seg[1] == 0xff9b && seg[2..6].iter().all(|&s| s == 0) && {
                    // NAT64 of a private IPv4 address
                    let v4 = Ipv4Addr::new((seg[6] >> 8) as u8, seg[6] as u8, (seg[7] >> 8) as u8, seg[7] as u8);
                    !is_public_v4(v4)
                })
        }
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let o = ip.octets();
    !(ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_multicast()
        || ip.is_broadcast()
        || ip.is_unspecified()
        || ip.is_documentation()
        || o[0] == 0 // "this network"
        || (o[0] == 100 && (o[1] & 0xc0) == 64) // CGNAT 100.64.0.0/10
        || (o[0] == 192 && o[1] == 0 && o[2] == 0) // IETF protocol assignments
        || (o[0] == 198 && (o[1] & 0xfe) == 18) // benchmarking 198.18.0.0/15
        || o[0] >= 240) // reserved
}

/// The refusal for a URL host, if its host is an IP literal that is not public.
pub(crate) fn check_host(url: &url::Url) -> Result<(), IpAddr> {
    let ip = match url.host() {
        Some(url::Host::Ipv4(v4)) => IpAddr::V4(v4),
        Some(url::Host::Ipv6(v6)) => IpAddr::V6(v6),
        _ => return Ok(()),
    };
    if is_public(ip) {
        Ok(())
    } else {
        Err(ip)
    }
}

/// The error a resolver gives when every address of a host is refused.
#[derive(Debug, thiserror::Error)]
#[error("{host} resolves only to non-public addresses ({addrs}); set fetch.allow_private_addresses = true to allow them")]
pub(crate) struct RefusedAddresses {
    pub host: String,
    pub addrs: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_non_public_ranges() {
        for s in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "224.0.0.1",
            "255.255.255.255",
            "192.0.2.1",
            "::1",
            "::",
            "fe80::1",
            "fc00::1",
            "fd12::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::a00:1",
            "2001:db8::1",
        ] {
            let ip: IpAddr = s.parse().expect("test address");
            assert!(!is_public(ip), "{s} must be refused");
        }
    }

    #[test]
    fn allows_public_addresses() {
        for s in [
            "93.184.216.34",
            "8.8.8.8",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
        ] {
            let ip: IpAddr = s.parse().expect("test address");
            assert!(is_public(ip), "{s} must be allowed");
        }
    }

    #[test]
    fn checks_ip_literal_hosts_only() {
        let u = |s: &str| url::Url::parse(s).expect("test url");
        assert!(check_host(&u("http://127.0.0.1:8080/")).is_err());
        assert!(check_host(&u("http://[::1]/")).is_err());
        assert!(
            check_host(&u("http://2130706433/")).is_err(),
            "decimal form of 127.0.0.1"
        );
        assert!(check_host(&u("http://example.org/")).is_ok());
        assert!(check_host(&u("http://8.8.8.8/")).is_ok());
    }
}
