//! Meridian's point-cloud engine, without HTTP: LAS/LAZ files read under limits into columns
//! ([`reader`]), the simple morphological ground filter of Pingel, Clarke and McBride (2013)
//! ([`smrf`]) with the extended local minimum filter for low outliers ([`elm`]), and the
//! accuracy measures of the ISPRS filter test ([`eval`]); then the learned classification of the
//! points that are neither ground nor noise: height above ground ([`hag`]), per-point features
//! ([`features`]), a random forest ([`forest`]) and the model file and pipeline ([`learn`]), with
//! a model trained on labelled files shipped in `models/`. The service (uploads, classification
//! jobs, downloads) will be built on these.
//! ([`smrf`]) with the extended local minimum filter for low outliers ([`elm`]), the cloth
//! simulation ground filter of Zhang et al. (2016) ([`csf`]), statistical and isolated-point
//! noise split into low and high noise ([`noise`]), and the accuracy measures of the ISPRS filter
//! test ([`eval`]). The service (uploads, classification jobs, downloads) will be built on these.

pub mod csf;
//! accuracy measures of the ISPRS filter test ([`eval`]); LAS/LAZ downloads cut, filtered and
//! reclassified ([`writer`]) and Cloud Optimized Point Clouds ([`copc`]). The service
//! (uploads, classification jobs, downloads) will be built on these.

pub mod copc;
pub mod elm;
pub mod eval;
pub mod features;
pub mod forest;
pub mod hag;
mod knn;
pub mod learn;
pub mod noise;
pub mod reader;
pub mod smrf;
pub mod writer;

pub use csf::{Csf, CsfError};
pub use copc::{write_copc, CopcOptions, CopcSummary};
pub use elm::Elm;
pub use eval::{ClassConfusion, Confusion};
pub use features::{compute_features, FeatureContext, FeatureError, Features, FEATURE_NAMES, N_FEATURES};
pub use forest::{ClassWeights, Forest, ForestError, ForestParams};
pub use hag::{height_above_ground, HagError};
pub use learn::{classify_objects, BlockSplit, LearnError, Model, ModelHeader, Pipeline, Prepared, TrainingInfo};
pub use eval::Confusion;
pub use noise::{Noise, NoiseError, NoiseMethod};
pub use reader::{Limits, PointCloud, PointCloudInfo, ReadError};
pub use smrf::{ReturnKind, Smrf, SmrfError};
pub use writer::{rewrite, OutputFormat, Rewrite, WriteError, WriteSummary};
