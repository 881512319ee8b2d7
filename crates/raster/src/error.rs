//! The engine's error type.

/// Everything that can go wrong while reading, computing or writing a raster.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing a file failed.
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
    /// The bytes are not a TIFF file this engine can read.
    #[error("not a valid TIFF: {0}")]
    InvalidTiff(String),
    /// A valid TIFF that uses a feature this engine does not implement.
    #[error("unsupported TIFF: {0}")]
    Unsupported(String),
    /// The file declares more than the configured [`Limits`](crate::tiff::Limits) allow.
    #[error("raster too large: {0}")]
    TooLarge(String),
    /// A compressed chunk could not be decoded.
    #[error("cannot decode chunk {chunk}: {reason}")]
    Decode { chunk: usize, reason: String },
    /// A caller-supplied option or argument is out of range.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A coordinate transformation failed.
    #[error("coordinate transformation failed: {0}")]
    Crs(String),
    /// Processing was cancelled by the caller.
    #[error("cancelled")]
    Cancelled,
}

/// Results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn invalid(msg: impl Into<String>) -> Self {
        Self::InvalidTiff(msg.into())
    }
    pub(crate) fn unsupported(msg: impl Into<String>) -> Self {
        Self::Unsupported(msg.into())
    }
    pub(crate) fn too_large(msg: impl Into<String>) -> Self {
        Self::TooLarge(msg.into())
    }
    pub(crate) fn arg(msg: impl Into<String>) -> Self {
        Self::InvalidArgument(msg.into())
    }
}
