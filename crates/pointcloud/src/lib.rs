//! Meridian's point-cloud engine, without HTTP: LAS/LAZ files read under limits into columns
//! ([`reader`]), the simple morphological ground filter of Pingel, Clarke and McBride (2013)
//! ([`smrf`]) with the extended local minimum filter for low outliers ([`elm`]), and the
//! accuracy measures of the ISPRS filter test ([`eval`]). The service
//! (uploads, classification jobs, downloads) will be built on these.

pub mod elm;
pub mod eval;
pub mod reader;
pub mod smrf;

pub use elm::Elm;
pub use eval::Confusion;
pub use reader::{Limits, PointCloud, PointCloudInfo, ReadError};
pub use smrf::{ReturnKind, Smrf, SmrfError};
