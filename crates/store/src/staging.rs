//! Staging of uploads: a request body streamed to a temporary file beside the blob store, with a
//! size limit, before it is checked and moved to the blob store or handed to a job. The one
//! staging path of every area (the HTTP toolkit wraps it).

use bytes::Bytes;
use futures::{Stream, StreamExt};
use std::path::Path;
use tokio::io::AsyncWriteExt;

/// A staged upload: removed from disk when dropped, unless persisted.
pub type StagedFile = tempfile::NamedTempFile;

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
    let staged = tempfile::NamedTempFile::new_in(dir)?;
    let mut out = tokio::fs::File::from_std(staged.reopen()?);
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
