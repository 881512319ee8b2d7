//! Staging of uploads: a request body streamed to a temporary file beside the blob store, with a
//! size limit, before it is checked and moved to the blob store or handed to a job. The one
//! staging path of every area (the HTTP toolkit wraps it).

use bytes::Bytes;
use futures::{Stream, StreamExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::io::AsyncWriteExt;

/// A staged upload: a new file of its own, removed from disk when dropped.
#[derive(Debug)]
pub struct StagedFile {
    file: std::fs::File,
    path: PathBuf,
}

impl StagedFile {
    /// Creates a new, empty file in `dir` under a name nobody else holds (`create_new`: an
    /// existing file is never opened, so two uploads never share one).
    pub fn new_in(dir: &Path) -> std::io::Result<Self> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
        loop {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let path = dir.join(format!(".upload-{}-{nanos:08x}-{n}", std::process::id()));
            match std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(&path) {
                Ok(file) => return Ok(Self { file, path }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Where the upload is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The open file.
    pub fn as_file(&self) -> &std::fs::File {
        &self.file
    }
}

impl Drop for StagedFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The staging folder of a process: every area's uploads and work files go there.
#[derive(Clone, Debug)]
pub struct Staging {
    dir: PathBuf,
}

impl Staging {
    /// Staging in `dir` (made when first used).
    pub fn new(dir: PathBuf) -> Self {
        Self { dir }
    }

    /// The folder, made if missing.
    pub fn dir(&self) -> std::io::Result<&Path> {
        std::fs::create_dir_all(&self.dir)?;
        Ok(&self.dir)
    }

    /// Streams `body` into a new file of the folder, refusing it once it passes `limit` bytes.
    pub async fn stage<S, E>(&self, body: S, limit: u64) -> Result<(StagedFile, u64), StageError<E>>
    where
        S: Stream<Item = Result<Bytes, E>> + Unpin,
    {
        stage(&self.dir, body, limit).await
    }
}

/// Why staging stopped.
#[derive(Debug, thiserror::Error)]
pub enum StageError<E> {
    /// The body passed `limit` bytes; nothing is kept.
    #[error("the upload is larger than the limit of {limit} bytes")]
    TooLarge { limit: u64 },
    /// The body could not be read (the client went away, a malformed multipart part).
    #[error("the body could not be read")]
    Read(E),
    /// The staging folder could not be written.
    #[error("staging the upload: {0}")]
    Io(#[from] std::io::Error),
}

/// Streams `body` into a new file in `dir`, refusing it once it passes `limit` bytes.
pub async fn stage<S, E>(dir: &Path, mut body: S, limit: u64) -> Result<(StagedFile, u64), StageError<E>>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
{
    std::fs::create_dir_all(dir)?;
    let staged = StagedFile::new_in(dir)?;
    let mut out = tokio::fs::File::from_std(staged.as_file().try_clone()?);
    let mut written = 0u64;
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(StageError::Read)?;
        written += chunk.len() as u64;
        if written > limit {
            return Err(StageError::TooLarge { limit });
        }
        out.write_all(&chunk).await?;
    }
    out.flush().await?;
    Ok((staged, written))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(parts: Vec<&'static [u8]>) -> impl Stream<Item = Result<Bytes, String>> + Unpin {
        futures::stream::iter(parts.into_iter().map(|p| Ok(Bytes::from_static(p))))
    }

    #[tokio::test]
    async fn stages_within_the_limit_and_refuses_past_it() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (file, n) = stage(dir.path(), body(vec![b"hello ", b"world"]), 11).await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(n, 11);
        assert_eq!(std::fs::read(file.path()).unwrap_or_default(), b"hello world");
        let refused = stage(dir.path(), body(vec![b"hello ", b"world!"]), 11).await;
        assert!(matches!(refused, Err(StageError::TooLarge { limit: 11 })));
        drop(file);
        // Nothing is left behind by either.
        assert_eq!(std::fs::read_dir(dir.path()).map(|d| d.count()).unwrap_or(1), 0);
    }

    #[tokio::test]
    async fn a_body_that_breaks_is_a_read_error() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let broken = futures::stream::iter(vec![Ok(Bytes::from_static(b"x")), Err("gone".to_owned())]);
        assert!(matches!(stage(dir.path(), broken, 100).await, Err(StageError::Read(e)) if e == "gone"));
    }
}
