//! UDP with the address a query came to (IP_PKTINFO, IPV6_RECVPKTINFO): a server listening on
//! `0.0.0.0` or `::` answers from that address, as NSD and Knot do, so that a resolver that
//! asked 192.0.2.2 does not get its answer from 192.0.2.1 and drop it.

use std::io;
use std::net::SocketAddr;
use tokio::net::UdpSocket;

/// The local address a datagram came to, to answer from.
#[derive(Clone, Copy)]
pub(crate) struct Dest(#[cfg(target_os = "linux")] Info);

#[cfg(target_os = "linux")]
#[derive(Clone, Copy)]
enum Info {
    V4(nix::libc::in_pktinfo),
    V6(nix::libc::in6_pktinfo),
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

/// Receives a datagram, with the address it came to when `pktinfo` is on.
pub(crate) async fn recv(
    socket: &UdpSocket,
    buf: &mut [u8],
    pktinfo: bool,
) -> io::Result<(usize, SocketAddr, Option<Dest>)> {
    #[cfg(target_os = "linux")]
    if pktinfo {
        use nix::sys::socket::{recvmsg, ControlMessageOwned, MsgFlags, SockaddrLike, SockaddrStorage};
        use std::io::IoSliceMut;
        use std::os::fd::AsRawFd;
        return socket
            .async_io(tokio::io::Interest::READABLE, || {
                let mut iov = [IoSliceMut::new(&mut *buf)];
                let mut space = nix::cmsg_space!(nix::libc::in6_pktinfo);
                let msg =
                    recvmsg::<SockaddrStorage>(socket.as_raw_fd(), &mut iov, Some(&mut space), MsgFlags::empty())?;
                let mut dest = None;
                for c in msg.cmsgs()? {
                    match c {
                        ControlMessageOwned::Ipv4PacketInfo(i) => dest = Some(Dest(Info::V4(i))),
                        ControlMessageOwned::Ipv6PacketInfo(i) => dest = Some(Dest(Info::V6(i))),
                        _ => {}
                    }
                }
                let from = msg.address.as_ref().and_then(|a| match a.family() {
                    Some(nix::sys::socket::AddressFamily::Inet) => {
                        a.as_sockaddr_in().map(|s| SocketAddr::V4(std::net::SocketAddrV4::from(*s)))
                    }
                    Some(nix::sys::socket::AddressFamily::Inet6) => {
                        a.as_sockaddr_in6().map(|s| SocketAddr::V6(std::net::SocketAddrV6::from(*s)))
                    }
                    _ => None,
                });
                let from = from.ok_or_else(|| io::Error::other("a datagram without a sender address"))?;
                Ok((msg.bytes, from, dest))
            })
            .await;
    }
    let _ = pktinfo;
    let (n, from) = socket.recv_from(buf).await?;
    Ok((n, from, None))
}

/// Sends a datagram to `to`, from the address the query came to when it is known.
pub(crate) async fn send(socket: &UdpSocket, data: &[u8], to: SocketAddr, from: Option<Dest>) -> io::Result<usize> {
    #[cfg(target_os = "linux")]
    if let Some(Dest(info)) = from {
        use nix::sys::socket::{sendmsg, ControlMessage, MsgFlags, SockaddrStorage};
        use std::io::IoSlice;
        use std::os::fd::AsRawFd;
        let addr = SockaddrStorage::from(to);
        return socket
            .async_io(tokio::io::Interest::WRITABLE, || {
                let iov = [IoSlice::new(data)];
                let sent = match info {
                    Info::V4(i) => {
                        let reply =
                            nix::libc::in_pktinfo { ipi_ifindex: 0, ipi_spec_dst: i.ipi_addr, ipi_addr: i.ipi_addr };
                        sendmsg(
                            socket.as_raw_fd(),
                            &iov,
                            &[ControlMessage::Ipv4PacketInfo(&reply)],
                            MsgFlags::empty(),
                            Some(&addr),
                        )
                    }
                    Info::V6(i) => sendmsg(
                        socket.as_raw_fd(),
                        &iov,
                        &[ControlMessage::Ipv6PacketInfo(&i)],
                        MsgFlags::empty(),
                        Some(&addr),
                    ),
                };
                sent.map_err(io::Error::from)
            })
            .await;
    }
    let _ = from;
    socket.send_to(data, to).await
}
