//! Meridian's point-cloud area without HTTP. The engine: LAS/LAZ files read under limits into
//! columns ([`reader`]) or summarised in one streaming pass ([`summary`], [`crs`]), noise
//! ([`noise`], [`elm`]), ground ([`smrf`], [`csf`]), height above ground ([`hag`]), per-point
//! features ([`features`]), a random forest ([`forest`]) and the model file and learned
//! classification ([`learn`], with a model trained on labelled files shipped in `models/`), run
//! in order by [`pipeline`]; LAS/LAZ and COPC writers ([`writer`], [`copc`]) and the ISPRS
//! accuracy measures ([`eval`]). The service ([`service`]) keeps uploads, runs the index and
//! classification jobs and prepares downloads over the store.

pub mod copc;
pub mod crs;
pub mod csf;
pub mod density;
pub mod elm;
pub mod eval;
pub mod features;
pub mod forest;
pub mod hag;
mod knn;
pub mod learn;
pub mod noise;
pub mod normalised;
pub mod pipeline;
pub mod reader;
pub mod rules;
pub mod service;
pub mod smrf;
pub mod summary;
pub mod tiles;
pub mod writer;

pub use copc::{write_copc, CopcOptions, CopcSummary};
pub use csf::{Csf, CsfError};
pub use elm::Elm;
pub use eval::{ClassConfusion, Confusion};
pub use features::{compute_features, FeatureContext, FeatureError, Features, FEATURE_NAMES, N_FEATURES};
pub use forest::{ClassWeights, Forest, ForestError, ForestParams};
pub use hag::{height_above_ground, HagError};
pub use learn::{classify_objects, BlockSplit, LearnError, Model, ModelHeader, Pipeline, Prepared, TrainingInfo};
pub use noise::{Noise, NoiseError, NoiseMethod};
pub use reader::{Limits, PointCloud, PointCloudInfo, ReadError};
pub use smrf::{ReturnKind, Smrf, SmrfError};
pub use writer::{rewrite, OutputFormat, Rewrite, WriteError, WriteSummary};
