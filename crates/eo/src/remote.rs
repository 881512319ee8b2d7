//! Assets on other http(s) servers, read as GDAL's `/vsicurl/` reads them: HTTP range requests
//! for the header and the tiles a window needs, through a small block cache. Every URL passes
//! the platform's SSRF guard (`meridian_egress`, the webhooks' policy) when it is opened, and again
//! inside the HTTP client's resolver, so the address checked is the address connected to; no
//! redirects are followed.

use meridian_egress::{GuardedResolver, Policy};
use meridian_raster::tiff::ReadAt;
use reqwest::header::{CONTENT_RANGE, RANGE};
use reqwest::StatusCode;
use std::sync::Arc;
use std::time::Duration;
use tokio::runtime::Handle;

/// Bytes one range request fetches (aligned blocks).
const BLOCK: u64 = 256 * 1024;

/// Blocks kept per open file (2 MiB; up to 256 files stay open, so 512 MiB in all at most); the
/// cache starts afresh when full.
const CACHED_BLOCKS: usize = 8;

/// A client for remote assets under `policy`. Building it fails only on a bad extra root or an
/// invalid setting, and it has neither.
pub fn client(policy: Policy) -> reqwest::Client {
    meridian_egress::tls::client_builder(&[])
        .expect("the bundled roots make a TLS configuration")
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .dns_resolver(Arc::new(GuardedResolver::new(policy)))
        .connect_timeout(Duration::from_secs(10))
        .timeout(Duration::from_secs(60))
        .user_agent(concat!("Meridian-EO/", env!("CARGO_PKG_VERSION")))
        .build()
        .expect("a guarded client with fixed settings builds")
}

/// A remote file read by ranges.
pub struct RemoteFile {
    client: reqwest::Client,
    url: String,
    size: u64,
    handle: Handle,
    blocks: meridian_core::cache::Bounded<u64, Arc<Vec<u8>>>,
}

/// Opens `url` (already checked by the guard): learns its size with a one-byte range request.
pub async fn open(client: reqwest::Client, url: &str, handle: Handle) -> Result<RemoteFile, String> {
    let r = client.get(url).header(RANGE, "bytes=0-0").send().await.map_err(|e| format!("{url}: {e}"))?;
    let size = match r.status() {
        StatusCode::PARTIAL_CONTENT => r
            .headers()
            .get(CONTENT_RANGE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.rsplit_once('/'))
            .and_then(|(_, total)| total.trim().parse::<u64>().ok())
            .ok_or_else(|| format!("{url}: the server's Content-Range names no size"))?,
        s => return Err(format!("{url}: the server answered {s} to a range request; assets must be range-readable")),
    };
    Ok(RemoteFile {
        client,
        url: url.to_owned(),
        size,
        handle,
        blocks: meridian_core::cache::Bounded::entries(CACHED_BLOCKS),
    })
}

impl RemoteFile {
    fn block(&self, index: u64) -> std::io::Result<Arc<Vec<u8>>> {
        if let Some(b) = self.blocks.get(&index) {
            return Ok(b.clone());
        }
        let start = index * BLOCK;
        let end = (start + BLOCK).min(self.size) - 1;
        let fetch = async {
            let r = self
                .client
                .get(&self.url)
                .header(RANGE, format!("bytes={start}-{end}"))
                .send()
                .await
                .map_err(std::io::Error::other)?;
            if r.status() != StatusCode::PARTIAL_CONTENT {
                return Err(std::io::Error::other(format!("{}: answered {} to a range request", self.url, r.status())));
            }
            // Read as it arrives and stopped at the length asked for: a server that sends more
            // than the range is not buffered whole.
            let want = (end - start + 1) as usize;
            let mut bytes = Vec::with_capacity(want);
            let mut r = r;
            while let Some(chunk) = r.chunk().await.map_err(std::io::Error::other)? {
                if bytes.len() + chunk.len() > want {
                    return Err(std::io::Error::other(format!("{}: a range came back longer than asked", self.url)));
                }
                bytes.extend_from_slice(&chunk);
            }
            if bytes.len() != want {
                return Err(std::io::Error::other(format!("{}: a range came back short", self.url)));
            }
            Ok(bytes)
        };
        let data = Arc::new(self.handle.block_on(fetch)?);
        self.blocks.insert(index, data.clone());
        Ok(data)
    }
}

impl ReadAt for RemoteFile {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        let end = offset.checked_add(buf.len() as u64).filter(|e| *e <= self.size).ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "a read past the end of the remote file")
        })?;
        let mut at = offset;
        while at < end {
            let index = at / BLOCK;
            let block = self.block(index)?;
            let within = (at - index * BLOCK) as usize;
            let n = (block.len() - within).min((end - at) as usize);
            let dst = (at - offset) as usize;
            buf[dst..dst + n].copy_from_slice(&block[within..within + n]);
            at += n as u64;
        }
        Ok(())
    }

    fn size(&self) -> u64 {
        self.size
    }
}
