//! Meridian's point-cloud engine, without HTTP: LAS/LAZ files read under limits into columns
//! ([`reader`]), the simple morphological ground filter of Pingel, Clarke and McBride (2013)
//! ([`smrf`]) with the extended local minimum filter for low outliers ([`elm`]), the cloth
//! simulation ground filter of Zhang et al. (2016) ([`csf`]), statistical and isolated-point
//! noise split into low and high noise ([`noise`]), and the accuracy measures of the ISPRS filter
//! test ([`eval`]). The service (uploads, classification jobs, downloads) will be built on these.

pub mod csf;
pub mod elm;
pub mod eval;
pub mod noise;
pub mod reader;
pub mod smrf;

pub use csf::{Csf, CsfError};
pub use elm::Elm;
pub use eval::Confusion;
pub use noise::{Noise, NoiseError, NoiseMethod};
pub use reader::{Limits, PointCloud, PointCloudInfo, ReadError};
pub use smrf::{ReturnKind, Smrf, SmrfError};
