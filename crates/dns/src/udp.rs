//! UDP in batches, on blocking sockets served by their own threads: up to [`BATCH`] datagrams per
//! `recvmmsg` and replies per `sendmmsg` on Linux, one at a time elsewhere. Each datagram carries
//! the address it came to (IP_PKTINFO, IPV6_RECVPKTINFO) when the socket is on a wildcard
//! address, and its reply goes out from that address, as NSD and Knot do, so that a resolver that
//! asked 192.0.2.2 does not get its answer from 192.0.2.1 and drop it.

use std::io;
use std::net::{SocketAddr, UdpSocket};

/// Datagrams taken, and replies sent, per system call.
pub(crate) const BATCH: usize = 32;

/// Largest datagram read.
const DATAGRAM: usize = 65_535;

/// The local address a datagram came to, to answer from.
#[derive(Clone, Copy)]
pub(crate) struct Dest(#[cfg(target_os = "linux")] Info);

#[cfg(target_os = "linux")]
#[derive(Clone, Copy)]
enum Info {
    V4(nix::libc::in_pktinfo),
    V6(nix::libc::in6_pktinfo),
}

impl Dest {
    fn same(a: Option<Dest>, b: Option<Dest>) -> bool {
        match (a, b) {
            (None, None) => true,
            #[cfg(target_os = "linux")]
            (Some(Dest(Info::V4(x))), Some(Dest(Info::V4(y)))) => x.ipi_addr.s_addr == y.ipi_addr.s_addr,
            #[cfg(target_os = "linux")]
            (Some(Dest(Info::V6(x))), Some(Dest(Info::V6(y)))) => {
                x.ipi6_addr.s6_addr == y.ipi6_addr.s6_addr && x.ipi6_ifindex == y.ipi6_ifindex
            }
            _ => false,
        }
    }
}

/// Asks the kernel for each datagram's destination; only worth it on a wildcard address.
/// Says whether it is on.
pub(crate) fn enable(socket: &UdpSocket) -> bool {
    let Ok(local) = socket.local_addr() else { return false };
    if !local.ip().is_unspecified() {
        return false;
    }
    #[cfg(target_os = "linux")]
    {
        use nix::sys::socket::{setsockopt, sockopt};
        let on = match local {
            SocketAddr::V4(_) => setsockopt(socket, sockopt::Ipv4PacketInfo, &true),
            SocketAddr::V6(_) => setsockopt(socket, sockopt::Ipv6RecvPacketInfo, &true),
        };
        if let Err(e) = on {
            tracing::warn!(error = %e, "cannot learn the destination of UDP queries; answers come from the default address");
        }
        on.is_ok()
    }
    #[cfg(not(target_os = "linux"))]
    false
}

/// Binds `count` UDP sockets to `addr` sharing its port (SO_REUSEPORT on Linux: the kernel
/// spreads the clients over them); elsewhere one socket.
pub(crate) fn bind_group(addr: SocketAddr, count: usize) -> io::Result<Vec<UdpSocket>> {
    #[cfg(target_os = "linux")]
    {
        use nix::sys::socket::{bind, setsockopt, socket, sockopt, AddressFamily, SockFlag, SockType, SockaddrStorage};
        use std::os::fd::AsRawFd;
        let family = if addr.is_ipv4() { AddressFamily::Inet } else { AddressFamily::Inet6 };
        let mut group = Vec::with_capacity(count.max(1));
        for _ in 0..count.max(1) {
            let fd = socket(family, SockType::Datagram, SockFlag::SOCK_CLOEXEC, None)?;
            setsockopt(&fd, sockopt::ReusePort, &true)?;
            bind(fd.as_raw_fd(), &SockaddrStorage::from(addr))?;
            group.push(UdpSocket::from(fd));
        }
        Ok(group)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = count;
        Ok(vec![UdpSocket::bind(addr)?])
    }
}

/// A datagram taken by [`Receiver::recv`].
#[derive(Clone, Copy)]
pub(crate) struct Received {
    pub(crate) len: usize,
    pub(crate) from: SocketAddr,
    pub(crate) dest: Option<Dest>,
}

/// Buffers for one worker's receiving.
pub(crate) struct Receiver {
    bufs: Vec<Vec<u8>>,
    pktinfo: bool,
    #[cfg(target_os = "linux")]
    headers: nix::sys::socket::MultiHeaders<nix::sys::socket::SockaddrStorage>,
}

impl Receiver {
    pub(crate) fn new(pktinfo: bool) -> Self {
        Self {
            bufs: (0..BATCH).map(|_| vec![0u8; DATAGRAM]).collect(),
            pktinfo,
            #[cfg(target_os = "linux")]
            headers: nix::sys::socket::MultiHeaders::preallocate(
                BATCH,
                pktinfo.then(|| nix::cmsg_space!(nix::libc::in6_pktinfo)),
            ),
        }
    }

    /// The `i`th datagram of the last [`Self::recv`].
    pub(crate) fn datagram(&self, i: usize, r: &Received) -> &[u8] {
        &self.bufs[i][..r.len]
    }

    /// Waits for a datagram (at most the socket's read timeout), then takes the others already
    /// queued, up to [`BATCH`].
    pub(crate) fn recv(&mut self, socket: &UdpSocket, out: &mut Vec<Received>) -> io::Result<()> {
        out.clear();
        #[cfg(target_os = "linux")]
        {
            use nix::sys::socket::{recvmmsg, ControlMessageOwned, MsgFlags};
            use std::io::IoSliceMut;
            use std::os::fd::AsRawFd;
            let mut slices: Vec<[IoSliceMut<'_>; 1]> = self.bufs.iter_mut().map(|b| [IoSliceMut::new(b)]).collect();
            let results =
                recvmmsg(socket.as_raw_fd(), &mut self.headers, slices.iter_mut(), MsgFlags::MSG_WAITFORONE, None)?;
            for msg in results {
                let Some(from) = msg.address.as_ref().and_then(socket_addr) else { continue };
                let mut dest = None;
                if self.pktinfo {
                    if let Ok(cmsgs) = msg.cmsgs() {
                        for c in cmsgs {
                            match c {
                                ControlMessageOwned::Ipv4PacketInfo(i) => dest = Some(Dest(Info::V4(i))),
                                ControlMessageOwned::Ipv6PacketInfo(i) => dest = Some(Dest(Info::V6(i))),
                                _ => {}
                            }
                        }
                    }
                }
                out.push(Received { len: msg.bytes, from, dest });
            }
            Ok(())
        }
        #[cfg(not(target_os = "linux"))]
        {
            let (len, from) = socket.recv_from(&mut self.bufs[0])?;
            out.push(Received { len, from, dest: None });
            Ok(())
        }
    }
}

#[cfg(target_os = "linux")]
fn socket_addr(a: &nix::sys::socket::SockaddrStorage) -> Option<SocketAddr> {
    use nix::sys::socket::{AddressFamily, SockaddrLike};
    match a.family() {
        Some(AddressFamily::Inet) => a.as_sockaddr_in().map(|s| SocketAddr::V4(std::net::SocketAddrV4::from(*s))),
        Some(AddressFamily::Inet6) => a.as_sockaddr_in6().map(|s| SocketAddr::V6(std::net::SocketAddrV6::from(*s))),
        _ => None,
    }
}

/// Replies gathered during a batch, sent together by [`Sender::flush`].
pub(crate) struct Sender {
    bufs: Vec<Vec<u8>>,
    to: Vec<(SocketAddr, Option<Dest>)>,
    used: usize,
    #[cfg(target_os = "linux")]
    headers: nix::sys::socket::MultiHeaders<nix::sys::socket::SockaddrStorage>,
}

impl Sender {
    pub(crate) fn new(pktinfo: bool) -> Self {
        let _ = pktinfo;
        Self {
            bufs: Vec::new(),
            to: Vec::with_capacity(BATCH),
            used: 0,
            #[cfg(target_os = "linux")]
            headers: nix::sys::socket::MultiHeaders::preallocate(
                BATCH,
                pktinfo.then(|| nix::cmsg_space!(nix::libc::in6_pktinfo)),
            ),
        }
    }

    /// A buffer for the next reply, to `to` from `dest`; sent by [`Self::flush`].
    pub(crate) fn next(&mut self, to: SocketAddr, dest: Option<Dest>) -> &mut Vec<u8> {
        if self.used == self.bufs.len() {
            self.bufs.push(Vec::with_capacity(512));
        }
        self.used += 1;
        self.to.push((to, dest));
        let buf = &mut self.bufs[self.used - 1];
        buf.clear();
        buf
    }

    /// Takes back the last buffer given by [`Self::next`], unused.
    pub(crate) fn cancel(&mut self) {
        if self.used > 0 {
            self.used -= 1;
            self.to.pop();
        }
    }

    /// Sends every gathered reply; a reply the kernel refuses is dropped, as a lost datagram.
    pub(crate) fn flush(&mut self, socket: &UdpSocket) {
        let mut start = 0;
        while start < self.used {
            // A run of replies from the same local address goes out in one call.
            let dest = self.to[start].1;
            let mut end = start + 1;
            while end < self.used && end - start < BATCH && Dest::same(self.to[end].1, dest) {
                end += 1;
            }
            match self.send_run(socket, start, end, dest) {
                Ok(0) | Err(_) => {
                    tracing::debug!(to = %self.to[start].0, "udp send failed");
                    start += 1;
                }
                Ok(n) => start += n,
            }
        }
        self.used = 0;
        self.to.clear();
    }

    #[cfg(target_os = "linux")]
    fn send_run(&mut self, socket: &UdpSocket, start: usize, end: usize, dest: Option<Dest>) -> io::Result<usize> {
        use nix::sys::socket::{sendmmsg, ControlMessage, MsgFlags, SockaddrStorage};
        use std::io::IoSlice;
        use std::os::fd::AsRawFd;
        let slices: Vec<[IoSlice<'_>; 1]> = self.bufs[start..end].iter().map(|b| [IoSlice::new(b)]).collect();
        let addrs: Vec<Option<SockaddrStorage>> =
            self.to[start..end].iter().map(|(to, _)| Some(SockaddrStorage::from(*to))).collect();
        let v4;
        let cmsgs: Vec<ControlMessage<'_>> = match &dest {
            None => Vec::new(),
            Some(Dest(Info::V4(i))) => {
                v4 = nix::libc::in_pktinfo { ipi_ifindex: 0, ipi_spec_dst: i.ipi_addr, ipi_addr: i.ipi_addr };
                vec![ControlMessage::Ipv4PacketInfo(&v4)]
            }
            Some(Dest(Info::V6(i))) => vec![ControlMessage::Ipv6PacketInfo(i)],
        };
        let sent = sendmmsg(socket.as_raw_fd(), &mut self.headers, &slices, addrs, cmsgs, MsgFlags::empty())?;
        Ok(sent.count())
    }

    #[cfg(not(target_os = "linux"))]
    fn send_run(&mut self, socket: &UdpSocket, start: usize, _end: usize, _dest: Option<Dest>) -> io::Result<usize> {
        socket.send_to(&self.bufs[start], self.to[start].0)?;
        Ok(1)
    }
}

/// Sends one datagram to `to`, from the address the query came to when it is known.
pub(crate) fn send_one(socket: &UdpSocket, data: &[u8], to: SocketAddr, from: Option<Dest>) -> io::Result<()> {
    let mut sender = Sender::new(from.is_some());
    sender.next(to, from).extend_from_slice(data);
    #[cfg(target_os = "linux")]
    return sender.send_run(socket, 0, 1, from).map(|_| ());
    #[cfg(not(target_os = "linux"))]
    {
        let _ = from;
        socket.send_to(data, to).map(|_| ())
    }
}
