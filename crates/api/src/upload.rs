//! Uploads: every area stages a request body (or a multipart part) through here, so the size
//! limit, the staging folder and the answers (413 past `limits.upload_bytes`) are the same
//! everywhere. The bytes go through `meridian_store::staging`.

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use bytes::Bytes;
use futures::Stream;
use meridian_store::staging::{self, StageError};

pub use meridian_store::staging::StagedFile;

/// Streams `body` to a staging file, refusing it past `limit` bytes (413); `read_error` turns a
/// failure to read the body (a client gone, a malformed part) into the area's problem.
pub async fn stage<S, E>(
    state: &AppState,
    body: S,
    limit: u64,
    read_error: impl FnOnce(E) -> ApiError,
) -> ApiResult<StagedFile>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
{
    let dir = state.dem.staging_dir().map_err(ApiError::internal)?;
    match staging::stage(dir, body, limit).await {
        Ok((file, _)) => Ok(file),
        Err(StageError::TooLarge { limit }) => Err(too_large(limit)),
        Err(StageError::Read(e)) => Err(read_error(e)),
        Err(StageError::Io(e)) => Err(ApiError::internal(e)),
    }
}

/// The 413 of an upload past `limit` bytes.
pub fn too_large(limit: u64) -> ApiError {
    ApiError::too_large(format!("the upload is larger than the limit of {limit} bytes (limits.upload_bytes)"))
}
