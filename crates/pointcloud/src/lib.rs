//! Meridian's point-cloud engine, without HTTP: LAS/LAZ files read under limits into columns
//! ([`reader`]), the simple morphological ground filter of Pingel, Clarke and McBride (2013)
//! ([`smrf`]) with the extended local minimum filter for low outliers ([`elm`]), and the
//! accuracy measures of the ISPRS filter test ([`eval`]); LAS/LAZ downloads cut, filtered and
//! reclassified ([`writer`]) and Cloud Optimized Point Clouds ([`copc`]). The service
//! (uploads, classification jobs, downloads) will be built on these.

pub mod copc;
pub mod elm;
pub mod eval;
pub mod reader;
pub mod smrf;
pub mod writer;

pub use copc::{write_copc, CopcOptions, CopcSummary};
pub use elm::Elm;
pub use eval::Confusion;
pub use reader::{Limits, PointCloud, PointCloudInfo, ReadError};
pub use smrf::{ReturnKind, Smrf, SmrfError};
pub use writer::{rewrite, OutputFormat, Rewrite, WriteError, WriteSummary};
