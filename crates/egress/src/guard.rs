//! The SSRF guard: servers Meridian calls (webhook endpoints, remote EO assets) must be public
//! HTTPS servers. A URL is checked when it is registered (a subscription, an item: its host's
//! addresses as they resolve then), and again on every request: IP literals before sending, names inside the HTTP client's resolver, so that
//! the address checked is the address connected to and DNS rebinding cannot slip through.

use futures::future::BoxFuture;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use url::{Host, Url};

/// What the guard lets through.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    /// Accept `http://` (development and tests).
    pub allow_http: bool,
    /// Accept loopback, private, link-local, CGNAT and other non-public addresses (development
    /// and tests). Cloud metadata, unspecified, broadcast and multicast addresses stay refused.
    pub allow_private_networks: bool,
}

/// Why a URL or address was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("the URL is not valid: {0}")]
    Malformed(String),
    #[error("only https:// endpoints are accepted")]
    Scheme,
    #[error("the URL must not carry a fragment")]
    Fragment,
    #[error("{host} is {kind} ({addr}); the servers Meridian calls must be public")]
    Address { host: String, addr: IpAddr, kind: &'static str },
    #[error("{host} does not resolve to any address")]
    NoAddress { host: String },
}

impl Refusal {
    /// A stable code for field errors.
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::Malformed(_) => "invalid_url",
            Refusal::Scheme => "https_required",
            Refusal::Fragment => "invalid_url",
            Refusal::Address { .. } => "forbidden_address",
            Refusal::NoAddress { .. } => "unresolvable_host",
        }
    }
}

/// Addresses refused even when private networks are allowed: nobody's webhook lives there.
fn always_refused(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            if v4.is_unspecified() || o[0] == 0 {
                Some("an unspecified address")
            } else if v4 == Ipv4Addr::new(169, 254, 169, 254)
                || v4 == Ipv4Addr::new(169, 254, 170, 2)
                || v4 == Ipv4Addr::new(100, 100, 100, 200)
                || v4 == Ipv4Addr::new(168, 63, 129, 16)
            {
                Some("a cloud metadata address")
            } else if v4.is_multicast() || v4.is_broadcast() || o[0] >= 240 {
                Some("a multicast, broadcast or reserved address")
            } else {
                None
            }
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = embedded_v4(v6) {
                return always_refused(IpAddr::V4(v4));
            }
            if v6.is_unspecified() {
                Some("an unspecified address")
            } else if v6 == Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254) {
                Some("a cloud metadata address")
            } else if v6.is_multicast() {
                Some("a multicast address")
            } else {
                None
            }
        }
    }
}

/// The IPv4 address an IPv6 one stands for: IPv4-mapped, IPv4-compatible, NAT64 (64:ff9b::/96)
/// and 6to4 (2002::/16).
fn embedded_v4(v6: Ipv6Addr) -> Option<Ipv4Addr> {
    if let Some(v4) = v6.to_ipv4_mapped() {
        return Some(v4);
    }
    let s = v6.segments();
    let tail = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    if s[..6] == [0, 0, 0, 0, 0, 0] && !(s[6] == 0 && s[7] <= 1) {
        return Some(tail);
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return Some(tail);
    }
    if s[0] == 0x2002 {
        return Some(Ipv4Addr::new((s[1] >> 8) as u8, s[1] as u8, (s[2] >> 8) as u8, s[2] as u8));
    }
    None
}

/// Addresses that only private networks and this host use.
fn non_public(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            if v4.is_loopback() {
                Some("a loopback address")
            } else if v4.is_private() {
                Some("a private address")
            } else if v4.is_link_local() {
                Some("a link-local address")
            } else if o[0] == 100 && (o[1] & 0xc0) == 64 {
                Some("a carrier-grade NAT address")
            } else if (o[0] == 192 && o[1] == 0 && (o[2] == 0 || o[2] == 2))
                || (o[0] == 198 && (o[1] & 0xfe) == 18)
                || (o[0] == 198 && o[1] == 51 && o[2] == 100)
                || (o[0] == 203 && o[1] == 0 && o[2] == 113)
            {
                Some("a reserved address")
            } else {
                None
            }
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = embedded_v4(v6) {
                return non_public(IpAddr::V4(v4));
            }
            let s = v6.segments();
            if v6.is_loopback() {
                Some("a loopback address")
            } else if (s[0] & 0xfe00) == 0xfc00 {
                Some("a unique local (private) address")
            } else if (s[0] & 0xffc0) == 0xfe80 || (s[0] & 0xffc0) == 0xfec0 {
                Some("a link-local address")
            } else if (s[0] == 0x2001 && s[1] == 0x0db8) || (s[0] == 0x0100 && s[1..4] == [0, 0, 0]) {
                Some("a reserved address")
            } else if s[0] == 0x2001 && s[1] == 0 {
                Some("a Teredo tunnel address")
            } else {
                None
            }
        }
    }
}

impl Policy {
    /// Checks one address of `host`.
    pub fn check_ip(&self, host: &str, addr: IpAddr) -> Result<(), Refusal> {
        let kind = always_refused(addr).or_else(|| if self.allow_private_networks { None } else { non_public(addr) });
        match kind {
            Some(kind) => Err(Refusal::Address { host: host.to_owned(), addr, kind }),
            None => Ok(()),
        }
    }

    /// Checks what can be checked without the network: the URL's shape, scheme, and its host when
    /// that is an IP address. Answers the parsed URL.
    pub fn check_url(&self, text: &str) -> Result<Url, Refusal> {
        let url = Url::parse(text).map_err(|e| Refusal::Malformed(e.to_string()))?;
        match url.scheme() {
            "https" => {}
            "http" if self.allow_http => {}
            _ => return Err(Refusal::Scheme),
        }
        if url.fragment().is_some() {
            return Err(Refusal::Fragment);
        }
        match url.host() {
            None => Err(Refusal::Malformed("the URL has no host".into())),
            Some(Host::Ipv4(v4)) => self.check_ip(&v4.to_string(), IpAddr::V4(v4)).map(|()| url),
            Some(Host::Ipv6(v6)) => self.check_ip(&v6.to_string(), IpAddr::V6(v6)).map(|()| url),
            Some(Host::Domain(name)) => {
                let name = name.trim_end_matches('.').to_ascii_lowercase();
                if name == "localhost" || name.ends_with(".localhost") {
                    // RFC 6761: always loopback, whatever a resolver says.
                    self.check_ip(&name, IpAddr::V4(Ipv4Addr::LOCALHOST)).map(|()| url)
                } else {
                    Ok(url)
                }
            }
        }
    }

    /// [`Policy::check_url`], then the addresses the host resolves to now. A name that does not
    /// resolve is accepted (the check is repeated on every attempt).
    pub async fn check_url_resolved(&self, text: &str) -> Result<Url, Refusal> {
        let url = self.check_url(text)?;
        if let Some(Host::Domain(name)) = url.host() {
            let port = url.port_or_known_default().unwrap_or(443);
            let lookup = tokio::time::timeout(std::time::Duration::from_secs(5), tokio::net::lookup_host((name, port)));
            if let Ok(Ok(addrs)) = lookup.await {
                for addr in addrs {
                    self.check_ip(name, addr.ip())?;
                }
            }
        }
        Ok(url)
    }
}

/// The HTTP client's resolver: resolves with the system resolver and refuses the whole name if
/// any of its addresses is not allowed.
#[derive(Clone, Debug)]
pub struct GuardedResolver {
    policy: Policy,
}

impl GuardedResolver {
    /// A resolver enforcing `policy`.
    pub fn new(policy: Policy) -> Self {
        Self { policy }
    }

    /// Resolves `host` and checks every address.
    pub async fn resolve_checked(&self, host: &str) -> Result<Vec<SocketAddr>, Refusal> {
        let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host, 0))
            .await
            .map_err(|_| Refusal::NoAddress { host: host.to_owned() })?
            .collect();
        if addrs.is_empty() {
            return Err(Refusal::NoAddress { host: host.to_owned() });
        }
        let lowered = host.trim_end_matches('.').to_ascii_lowercase();
        if lowered == "localhost" || lowered.ends_with(".localhost") {
            self.policy.check_ip(host, IpAddr::V4(Ipv4Addr::LOCALHOST))?;
        }
        for addr in &addrs {
            self.policy.check_ip(host, addr.ip())?;
        }
        Ok(addrs)
    }
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let this = self.clone();
        let fut: BoxFuture<'static, _> = Box::pin(async move {
            let addrs = this.resolve_checked(name.as_str()).await?;
            let addrs: Addrs = Box::new(addrs.into_iter());
            Ok(addrs)
        });
        fut
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STRICT: Policy = Policy { allow_http: false, allow_private_networks: false };
    const DEV: Policy = Policy { allow_http: true, allow_private_networks: true };

    fn refused(policy: Policy, url: &str) -> Option<&'static str> {
        policy.check_url(url).err().map(|e| e.code())
    }

    #[test]
    fn only_https_unless_allowed() {
        assert_eq!(refused(STRICT, "http://example.com/hook"), Some("https_required"));
        assert_eq!(refused(STRICT, "ftp://example.com/hook"), Some("https_required"));
        assert_eq!(refused(STRICT, "https://example.com/hook"), None);
        assert_eq!(refused(DEV, "http://example.com/hook"), None);
        assert_eq!(refused(STRICT, "not a url"), Some("invalid_url"));
        assert_eq!(refused(STRICT, "https://example.com/#frag"), Some("invalid_url"));
    }

    #[test]
    fn private_and_special_addresses_are_refused() {
        for url in [
            "https://127.0.0.1/",
            "https://127.1.2.3:8443/x",
            "https://10.0.0.1/",
            "https://10.255.255.255/",
            "https://172.16.0.1/",
            "https://172.31.255.1/",
            "https://192.168.1.1/",
            "https://169.254.1.1/",
            "https://169.254.169.254/latest/meta-data/",
            "https://100.64.0.1/",
            "https://100.127.255.254/",
            "https://0.0.0.0/",
            "https://224.0.0.1/",
            "https://255.255.255.255/",
            "https://[::1]/",
            "https://[::]/",
            "https://[fc00::1]/",
            "https://[fd12:3456::1]/",
            "https://[fe80::1]/",
            "https://[::ffff:127.0.0.1]/",
            "https://[::ffff:10.0.0.1]/",
            "https://[64:ff9b::a00:1]/",
            "https://[2002:a00:1::]/",
            "https://[ff02::1]/",
            "https://[fd00:ec2::254]/",
            "https://localhost/",
            "https://api.localhost/",
            // Shorthand forms that URL parsers turn into 127.0.0.1.
            "https://2130706433/",
            "https://0x7f.1/",
            "https://127.1/",
        ] {
            assert_eq!(refused(STRICT, url), Some("forbidden_address"), "{url}");
        }
        for url in
            ["https://93.184.215.14/", "https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/", "https://100.128.0.1/"]
        {
            assert_eq!(refused(STRICT, url), None, "{url}");
        }
    }

    #[test]
    fn development_mode_lifts_private_ranges_but_never_metadata() {
        assert_eq!(refused(DEV, "http://127.0.0.1:8080/"), None);
        assert_eq!(refused(DEV, "http://10.1.2.3/"), None);
        assert_eq!(refused(DEV, "http://localhost:9/"), None);
        assert_eq!(refused(DEV, "http://169.254.169.254/"), Some("forbidden_address"));
        assert_eq!(refused(DEV, "http://[::ffff:169.254.169.254]/"), Some("forbidden_address"));
        assert_eq!(refused(DEV, "http://0.0.0.0/"), Some("forbidden_address"));
    }

    #[tokio::test]
    async fn the_resolver_refuses_names_that_resolve_to_loopback() {
        let strict = GuardedResolver::new(STRICT);
        let err = strict.resolve_checked("localhost").await.err();
        assert!(matches!(err, Some(Refusal::Address { .. })), "{err:?}");
        let dev = GuardedResolver::new(DEV);
        let addrs = dev.resolve_checked("localhost").await.unwrap_or_default();
        assert!(addrs.iter().all(|a| a.ip().is_loopback()) && !addrs.is_empty());
    }

    #[tokio::test]
    async fn resolved_check_catches_names_pointing_inside() {
        let err = STRICT.check_url_resolved("https://localhost:8443/hook").await.err();
        assert_eq!(err.map(|e| e.code()), Some("forbidden_address"));
        // A name that does not resolve is left to the attempt-time check.
        assert!(STRICT.check_url_resolved("https://does-not-exist.invalid/hook").await.is_ok());
    }
}
