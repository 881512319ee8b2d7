//! The learned classification of the points that are neither ground nor noise: a random forest
//! ([`crate::forest`]) over per-point features ([`crate::features`]), and the model file that
//! carries it.
//!
//! The pipeline, the same for training and inference ([`Pipeline`]): low outliers by ELM, ground
//! by SMRF without them, height above ground from that ground ([`crate::hag`]), then the features
//! of the remaining points and the forest.
//!
//! The forest predicts 1 (other), 2 (ground the filter missed), vegetation and 6 (building),
//! as far as the training data have them; a vegetation point's class is then 3, 4 or 5 by its
//! height above ground against [`ModelHeader::vegetation_heights`], the convention of the
//! labelled data (the classes are height bands, not kinds of plant). No training file labels
//! water (9) or other classes, so the model never predicts them.
//!
//! # Model file
//!
//! ```text
//! 8 bytes   b"MPCMODEL"
//! u32       layout version (1), little-endian
//! u32       length of the header
//! header    UTF-8 JSON: ModelHeader (format name and version, feature names in order,
//!           ASPRS class of each forest class, vegetation heights, training metadata)
//! forest    Forest::to_bytes
//! u64       FNV-1a 64 of every byte before it, little-endian
//! ```
//!
//! [`Model::from_bytes`] checks the magic, the version, the checksum, the header, that the
//! feature list is this build's [`FEATURE_NAMES`], and the forest's structure: any other file is an
//! error.

use crate::elm::Elm;
use crate::features::{FeatureContext, FeatureError, Features, FEATURE_NAMES, N_FEATURES};
use crate::forest::{argmax, Forest, ForestError, ForestParams};
use crate::hag::{height_above_ground, HagError};
use crate::reader::PointCloud;
use crate::rules::{PointShape, Rules};
use crate::smrf::{Smrf, SmrfError};

/// The format name in a model header.
pub const FORMAT: &str = "meridian-pointcloud-classifier";
/// The version of the header this build reads and writes.
pub const VERSION: u32 = 1;
const MAGIC: &[u8; 8] = b"MPCMODEL";

/// The class the forest uses for vegetation before its height band is chosen.
pub const VEGETATION: u8 = 3;

/// The model trained on the labelled files in tests/data (see docs), compiled in.
static DEFAULT_MODEL: &[u8] = include_bytes!("../models/classifier-v1.mpcm");

/// Errors of the learned classification.
#[derive(Debug, thiserror::Error)]
pub enum LearnError {
    /// The columns (cloud, masks, heights) have different lengths.
    #[error("the point columns have different lengths")]
    Columns,
    /// The progress callback asked to stop.
    #[error("cancelled")]
    Cancelled,
    /// The model file is not one this build reads.
    #[error("invalid model: {0}")]
    Model(String),
    /// The model's forest is corrupt, or training failed.
    #[error(transparent)]
    Forest(#[from] ForestError),
    /// Computing the features failed.
    #[error(transparent)]
    Features(#[from] FeatureError),
    /// The ground filter failed.
    #[error(transparent)]
    Ground(#[from] SmrfError),
    /// The height above ground failed.
    #[error(transparent)]
    Hag(#[from] HagError),
}

/// A `Result` of this module.
pub type Result<T, E = LearnError> = std::result::Result<T, E>;

/// What a model says about itself.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelHeader {
    /// [`FORMAT`].
    pub format: String,
    /// [`VERSION`].
    pub version: u32,
    /// Feature names in the order the forest reads them ([`FEATURE_NAMES`]).
    pub features: Vec<String>,
    /// ASPRS class of each forest class ([`VEGETATION`] for vegetation).
    pub classes: Vec<u8>,
    /// Heights above ground, metres, separating low (3) from medium (4) and medium from high
    /// (5) vegetation.
    pub vegetation_heights: [f32; 2],
    /// How the model was trained.
    pub training: TrainingInfo,
}

/// Training metadata, kept in the model file.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainingInfo {
    /// The labelled files.
    pub files: Vec<String>,
    /// Training samples (points).
    pub samples: usize,
    /// How the held-out part was chosen.
    pub split: String,
    /// The ground step.
    pub pipeline: String,
    /// The forest's parameters.
    pub forest: ForestParams,
    /// Overall accuracy on the held-out part.
    pub held_out_accuracy: f64,
}

/// A trained classifier: its header and its forest.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// What the model says about itself.
    pub header: ModelHeader,
    forest: Forest,
}

/// The training class of an ASPRS class: vegetation (3, 4, 5) merged, classes other than 1, 2
/// and 6 left out.
pub fn training_class(asprs: u8) -> Option<u8> {
    match asprs {
        1 | 2 | 6 => Some(asprs),
        3..=5 => Some(VEGETATION),
        _ => None,
    }
}

impl Model {
    /// The model shipped with the crate (models/classifier-v1.mpcm).
    pub fn default_model() -> Result<Self> {
        Self::from_bytes(DEFAULT_MODEL)
    }

    /// Trains a model on `features` (row-major, [`N_FEATURES`] per row) labelled with ASPRS
    /// classes `labels`; rows whose class [`training_class`] leaves out are skipped.
    pub fn train(
        features: &[f32],
        labels: &[u8],
        vegetation_heights: [f32; 2],
        params: &ForestParams,
        training: TrainingInfo,
    ) -> Result<Self> {
        if features.len() != labels.len() * N_FEATURES {
            return Err(LearnError::Columns);
        }
        let mut classes: Vec<u8> = labels.iter().filter_map(|&c| training_class(c)).collect();
        classes.sort_unstable();
        classes.dedup();
        let mut x = Vec::with_capacity(features.len());
        let mut y = Vec::with_capacity(labels.len());
        for (r, &c) in labels.iter().enumerate() {
            if let Some(k) = training_class(c).and_then(|t| classes.iter().position(|&v| v == t)) {
                x.extend_from_slice(&features[r * N_FEATURES..(r + 1) * N_FEATURES]);
                y.push(k as u8);
            }
        }
        let forest = Forest::train(&x, &y, N_FEATURES, classes.len(), params)?;
        let header = ModelHeader {
            format: FORMAT.to_owned(),
            version: VERSION,
            features: FEATURE_NAMES.iter().map(|&s| s.to_owned()).collect(),
            classes,
            vegetation_heights,
            training: TrainingInfo { samples: y.len(), ..training },
        };
        Ok(Self { header, forest })
    }

    /// The model file ([module docs](self)).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let header = serde_json::to_vec(&self.header).map_err(|e| LearnError::Model(e.to_string()))?;
        let mut b = Vec::new();
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&VERSION.to_le_bytes());
        b.extend_from_slice(&(header.len() as u32).to_le_bytes());
        b.extend_from_slice(&header);
        b.extend_from_slice(&self.forest.to_bytes());
        b.extend_from_slice(&fnv1a(&b).to_le_bytes());
        Ok(b)
    }

    /// Reads a model file, checking everything ([module docs](self)).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let bad = |m: String| LearnError::Model(m);
        if bytes.len() < 24 || &bytes[..8] != MAGIC {
            return Err(bad("not a Meridian point-cloud model".to_owned()));
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        let mut s = [0u8; 8];
        s.copy_from_slice(sum);
        if fnv1a(body) != u64::from_le_bytes(s) {
            return Err(bad("checksum mismatch: the file is corrupt or truncated".to_owned()));
        }
        let u32_at = |at: usize| u32::from_le_bytes([body[at], body[at + 1], body[at + 2], body[at + 3]]);
        let version = u32_at(8);
        if version != VERSION {
            return Err(bad(format!("model layout version {version}, this build reads {VERSION}")));
        }
        let len = u32_at(12) as usize;
        let header_bytes =
            body.get(16..16usize.saturating_add(len)).ok_or_else(|| bad("header past the end".to_owned()))?;
        let header: ModelHeader = serde_json::from_slice(header_bytes).map_err(|e| bad(format!("header: {e}")))?;
        if header.format != FORMAT || header.version != VERSION {
            return Err(bad(format!("format {} version {}", header.format, header.version)));
        }
        if header.features.iter().map(String::as_str).ne(FEATURE_NAMES.iter().copied()) {
            return Err(bad("the model's features are not this build's".to_owned()));
        }
        if header.classes.iter().any(|&c| training_class(c) != Some(c)) {
            return Err(bad(format!("classes {:?}", header.classes)));
        }
        if header.vegetation_heights.iter().any(|h| !h.is_finite()) {
            return Err(bad(format!("vegetation heights {:?}", header.vegetation_heights)));
        }
        let forest = Forest::from_bytes(&body[16 + len..])?;
        if forest.n_features() != N_FEATURES || forest.n_classes() != header.classes.len() {
            return Err(bad(format!(
                "the forest has {} features and {} classes, the header {} and {}",
                forest.n_features(),
                forest.n_classes(),
                N_FEATURES,
                header.classes.len()
            )));
        }
        Ok(Self { header, forest })
    }

    /// The forest.
    pub fn forest(&self) -> &Forest {
        &self.forest
    }

    /// The ASPRS class of a feature row and the forest's probability for it: vegetation is
    /// given its height band.
    pub fn predict(&self, row: &[f32]) -> (u8, f32) {
        let mut probabilities = [0f32; 255];
        let p = &mut probabilities[..self.forest.n_classes()];
        self.forest.probabilities(row, p);
        self.class_of(row, p)
    }

    /// The class of a feature row from the forest's probabilities for it.
    fn class_of(&self, row: &[f32], p: &[f32]) -> (u8, f32) {
        let (k, p) = argmax(p);
        let class = self.header.classes.get(k).copied().unwrap_or(1);
        if class == VEGETATION {
            let h = row.get(hag_feature()).copied().unwrap_or(0.0);
            let [low, high] = self.header.vegetation_heights;
            let band = if h < low {
                3
            } else if h < high {
                4
            } else {
                5
            };
            return (band, p);
        }
        (class, p)
    }
}

fn hag_feature() -> usize {
    const HAG: usize = crate::features::column("height_above_ground");
    HAG
}

/// FNV-1a, 64 bits.
fn fnv1a(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325, |h, &x| (h ^ u64::from(x)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// The steps before the forest, the same for training and inference.
#[derive(Debug, Clone, PartialEq)]
pub struct Pipeline {
    /// Low outliers (none by default: in a sparse closed canopy ELM takes the few ground
    /// returns for low noise, see docs/pointcloud.md).
    pub elm: Option<Elm>,
    /// Ground.
    pub smrf: Smrf,
    /// Cell of the ground raster of the height above ground, metres.
    pub hag_cell: f64,
    /// Take raised plateaus back out of the ground, as the classification pipeline does.
    pub roofs: bool,
    /// The plateaus' step ([`Rules::jump`]), metres.
    pub roof_jump: f64,
    /// Ground points more than this above the ground surface are not ground (the pipeline's
    /// `ground.offset`).
    pub ground_offset: Option<f64>,
}

impl Default for Pipeline {
    /// No ELM, [`Smrf::isprs`] (its cell never finer than the point spacing), the raised-ground
    /// step and a 1 m ground raster: the classification pipeline's defaults.
    fn default() -> Self {
        Self {
            elm: None,
            smrf: Smrf::isprs(),
            hag_cell: 1.0,
            roofs: true,
            roof_jump: Rules::default().jump,
            ground_offset: None,
        }
    }
}

/// What the pipeline gives before the forest.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// Noise class of each point (7, low noise), 0 for none.
    pub noise: Vec<u8>,
    /// Ground mask.
    pub ground: Vec<bool>,
    /// Height above ground.
    pub hag: Vec<f32>,
}

impl Pipeline {
    /// Noise, ground and height above ground of `cloud`.
    pub fn prepare(&self, cloud: &PointCloud) -> Result<Prepared> {
        let spacing = crate::density::spacing(&cloud.x, &cloud.y);
        let low = match &self.elm {
            // ELM's defaults are widened over a sparse cloud ([`Elm::for_spacing`]).
            Some(elm) if *elm == Elm::default() => Elm::for_spacing(spacing).noise(&cloud.x, &cloud.y, &cloud.z),
            Some(elm) => elm.noise(&cloud.x, &cloud.y, &cloud.z),
            None => vec![false; cloud.len()],
        };
        let mut ground = self.smrf.for_spacing(spacing).classify_cloud_without(cloud, &low)?;
        if self.roofs {
            let rules = Rules { jump: self.roof_jump, ..Rules::default() };
            rules.lower_raised_ground(&cloud.x, &cloud.y, &cloud.z, &mut ground, spacing);
        }
        let hag = height_above_ground(&cloud.x, &cloud.y, &cloud.z, &ground, self.hag_cell)?;
        if let Some(offset) = self.ground_offset {
            crate::rules::trim_ground(&mut ground, &hag, offset);
        }
        let noise = low.iter().map(|&n| if n { 7 } else { 0 }).collect();
        Ok(Prepared { noise, ground, hag })
    }
}

/// The points the forest classifies: neither ground nor noise.
pub fn object_points(ground: &[bool], noise: &[u8]) -> Vec<usize> {
    (0..ground.len()).filter(|&i| !ground[i] && noise.get(i).is_some_and(|&n| n == 0)).collect()
}

/// Trains a model: [`Model::train`].
pub fn train(
    features: &[f32],
    labels: &[u8],
    vegetation_heights: [f32; 2],
    params: &ForestParams,
    training: TrainingInfo,
) -> Result<Model> {
    Model::train(features, labels, vegetation_heights, params, training)
}

/// Features of the object points (neither ground nor noise) of a prepared cloud, restricted to
/// the points `keep` marks when given.
pub fn object_features(cloud: &PointCloud, prepared: &Prepared, keep: Option<&[bool]>) -> Result<Features> {
    if keep.is_some_and(|k| k.len() != cloud.len()) || prepared.ground.len() != cloud.len() {
        return Err(LearnError::Columns);
    }
    let context = FeatureContext::new(cloud, &prepared.hag)?;
    let points: Vec<usize> = object_points(&prepared.ground, &prepared.noise)
        .into_iter()
        .filter(|&i| context.usable(i) && keep.is_none_or(|k| k[i]))
        .collect();
    let values = context.compute(&points);
    Ok(Features { points, values })
}

/// A spatial split into square blocks: with the blocks numbered by column `bx` and row `by`
/// from the cloud's lowest x and y, a block is held out when `(bx + 3 * by) % modulus == held`.
/// The pattern staggers the held-out blocks over rows, so that they sample the whole area.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockSplit {
    /// Side of a block, metres.
    pub block: f64,
    /// One block in `modulus` is held out.
    pub modulus: u64,
    /// Which residue is held out.
    pub held: u64,
}

impl Default for BlockSplit {
    /// 20 m blocks, one in five held out.
    fn default() -> Self {
        Self { block: 20.0, modulus: 5, held: 2 }
    }
}

impl BlockSplit {
    /// `true` for the points in held-out blocks.
    pub fn held_out(&self, x: &[f64], y: &[f64]) -> Vec<bool> {
        let x0 = x.iter().copied().filter(|v| v.is_finite()).fold(f64::INFINITY, f64::min);
        let y0 = y.iter().copied().filter(|v| v.is_finite()).fold(f64::INFINITY, f64::min);
        x.iter()
            .zip(y)
            .map(|(&x, &y)| {
                let bx = ((x - x0) / self.block).max(0.0) as u64;
                let by = ((y - y0) / self.block).max(0.0) as u64;
                (bx + 3 * by) % self.modulus.max(1) == self.held
            })
            .collect()
    }
}

/// Points per chunk between two progress reports.
const CHUNK: usize = 1 << 16;

/// Classes and confidences (0–255, the forest's probability) of the points of `cloud`: ground
/// points get 2, noise points their class in `noise` (non-zero), both with confidence 255; the
/// others the model's prediction ([`Model::predict`]). Points with a non-finite coordinate get 1
/// with confidence 0. `progress(fraction)` is called between chunks; returning false stops with
/// [`LearnError::Cancelled`].
///
/// ```no_run
/// use meridian_pointcloud::reader::{read_path, Limits};
/// use meridian_pointcloud::{classify_objects, Model, Pipeline};
/// let (_, cloud) = read_path("tile.laz", Limits::default())?;
/// let prepared = Pipeline::default().prepare(&cloud)?;
/// let model = Model::default_model()?;
/// let (class, confidence) =
///     classify_objects(&cloud, &prepared.ground, &prepared.noise, &prepared.hag, &model, &|_| true)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn classify_objects(
    cloud: &PointCloud,
    ground: &[bool],
    noise: &[u8],
    hag: &[f32],
    model: &Model,
    progress: &(dyn Fn(f64) -> bool + Sync),
) -> Result<(Vec<u8>, Vec<u8>)> {
    let how = Classifier { method: Method::Model, model: Some(model), rules: Rules::default(), spacing: 1.0 };
    classify_objects_by(cloud, ground, noise, hag, &how, progress)
}

/// How the object points are classed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// The geometric rules alone ([`crate::rules`]), with the roof patches they miss taken
    /// back ([`ENCLOSED_SHARE`]).
    Rules,
    /// Every point above the ground vegetation by its height band, no buildings: what a PDAL
    /// pipeline of `filters.smrf`, `filters.hag_nn` and `filters.assign` gives (the baseline).
    Heights,
    /// The forest alone.
    Model,
    /// The forest where it is confident (probability at least [`CONFIDENT`]), the rules
    /// elsewhere; the rules alone on a file that records one return a pulse. A building answer
    /// that stands alone among its neighbours' ([`LONE_SHARE`]) becomes vegetation; then, as
    /// for the rules, a vegetation answer a roof encloses ([`ENCLOSED_SHARE`]) becomes building.
    Combined,
}

/// The forest's probability above which the combined method takes its answer over the rules'.
pub const CONFIDENT: f32 = 0.7;

/// What [`classify_objects_by`] classes with.
#[derive(Debug, Clone)]
pub struct Classifier<'m> {
    /// Rules, model or both.
    pub method: Method,
    /// The model ([`Method::Model`] and [`Method::Combined`] need one).
    pub model: Option<&'m Model>,
    /// The rules' thresholds.
    pub rules: Rules,
    /// The points' nominal spacing ([`crate::density::spacing`]).
    pub spacing: f64,
}

/// Classes and confidences (0–255) of the points of `cloud`: ground points get 2, noise points
/// their class in `noise` (non-zero), both with confidence 255; the others the class `how`
/// gives them (the forest's with its probability as the confidence; the rules' with 255 alone,
/// or, where the combined method falls back to them, with one minus the forest's probability;
/// a vegetation answer a roof took in ([`ENCLOSED_SHARE`]) with the share of its neighbours
/// called building). Points with a non-finite coordinate get 1 with confidence 0.
/// `progress(fraction)` is called between chunks; returning false stops with
/// [`LearnError::Cancelled`].
pub fn classify_objects_by(
    cloud: &PointCloud,
    ground: &[bool],
    noise: &[u8],
    hag: &[f32],
    how: &Classifier<'_>,
    progress: &(dyn Fn(f64) -> bool + Sync),
) -> Result<(Vec<u8>, Vec<u8>)> {
    let n = cloud.len();
    if ground.len() != n || noise.len() != n || hag.len() != n {
        return Err(LearnError::Columns);
    }
    // The forest learnt what several returns say of a point: on a file that records one return
    // a pulse, the combined method falls back to the rules alone.
    let multi = cloud.number_of_returns.iter().any(|&r| r > 1);
    let method = if how.method == Method::Combined && !multi { Method::Rules } else { how.method };
    let model = match (method, how.model) {
        (Method::Rules | Method::Heights, _) => None,
        (_, Some(m)) => Some(m),
        (_, None) => return Err(LearnError::Model("no model loaded".to_owned())),
    };
    let mut class = vec![1u8; n];
    let mut confidence = vec![0u8; n];
    for i in 0..n {
        if noise[i] != 0 {
            (class[i], confidence[i]) = (noise[i], 255);
        } else if ground[i] {
            (class[i], confidence[i]) = (2, 255);
        }
    }
    let points = object_points(ground, noise);
    if points.is_empty() {
        return if progress(1.0) { Ok((class, confidence)) } else { Err(LearnError::Cancelled) };
    }
    let context = FeatureContext::new(cloud, hag)?;
    if !progress(0.0) {
        return Err(LearnError::Cancelled);
    }
    let mut shapes = Vec::with_capacity(points.len());
    let mut predicted: Vec<(u8, f32)> = Vec::with_capacity(if model.is_some() { points.len() } else { 0 });
    let mut done = 0;
    for chunk in points.chunks(CHUNK) {
        let values = context.compute(chunk);
        shapes.extend(values.chunks(N_FEATURES).map(PointShape::of_row));
        if let Some(model) = model {
            predicted.extend(predict_rows(model, &values));
        }
        done += chunk.len();
        if !progress(0.9 * done as f64 / points.len() as f64) {
            return Err(LearnError::Cancelled);
        }
    }
    let building = if matches!(method, Method::Model | Method::Heights) {
        Vec::new()
    } else {
        how.rules.buildings(&context, &points, &shapes, how.spacing, multi)
    };
    for (k, &i) in points.iter().enumerate() {
        if !context.usable(i) {
            continue;
        }
        let rule = || {
            if building[k] {
                6
            } else {
                how.rules.vegetation_band(shapes[k].hag)
            }
        };
        (class[i], confidence[i]) = match method {
            Method::Model => (predicted[k].0, scale(predicted[k].1)),
            Method::Rules => (rule(), 255),
            Method::Heights => (how.rules.vegetation_band(shapes[k].hag), 255),
            Method::Combined if predicted[k].1 >= CONFIDENT => (predicted[k].0, scale(predicted[k].1)),
            Method::Combined => (rule(), scale(1.0 - predicted[k].1)),
        };
    }
    if method == Method::Combined {
        for k in lone_buildings(cloud, &points, &class) {
            let i = points[k];
            (class[i], confidence[i]) = (how.rules.vegetation_band(shapes[k].hag), scale(1.0 - predicted[k].1));
        }
    }
    if matches!(method, Method::Rules | Method::Combined) {
        let tall = |k: usize| f64::from(shapes[k].hag) >= how.rules.building_height;
        for (k, share) in enclosed_vegetation(cloud, &points, &class, tall, how.spacing) {
            (class[points[k]], confidence[points[k]]) = (6, scale(share as f32));
        }
    }
    if !progress(1.0) {
        return Err(LearnError::Cancelled);
    }
    Ok((class, confidence))
}

/// Neighbours a building point's answer is checked against ([`lone_buildings`]).
pub const LONE_NEIGHBOURS: usize = 12;

/// Least share of a building point's [`LONE_NEIGHBOURS`] that are building too ([`lone_buildings`]).
pub const LONE_SHARE: f64 = 0.2;

/// Positions in `points` (the object points, with their classes in `class`) of the building
/// points that stand alone: fewer than [`LONE_SHARE`] of their [`LONE_NEIGHBOURS`] nearest object
/// points (in 3-D) are building too. A roof is a surface of many points answered alike; a lone
/// building answer inside a canopy is the forest mistaking a crown for a roof, which it does
/// where the canopy is sparse (a tenth of a point a square metre). Set on tuning data only
/// (docs/pointcloud.md, "Classes on unseen lidar").
fn lone_buildings(cloud: &PointCloud, points: &[usize], class: &[u8]) -> Vec<usize> {
    use rayon::prelude::*;
    if !points.iter().any(|&i| class[i] == 6) {
        return Vec::new();
    }
    let Some(answers) = Answers::new(cloud, points, class, LONE_NEIGHBOURS) else { return Vec::new() };
    let is_building = |h: usize| class[points[answers.held[h]]] == 6;
    let building = answers.by_position(is_building);
    // In the index's order: one point's neighbours are mostly the next one's.
    (0..answers.held.len() as u32)
        .into_par_iter()
        .filter(|&at| building[at as usize])
        .map_init(
            || (Vec::new(), Vec::new()),
            |(scratch, near), at| {
                let (b, n) = answers.count(at, LONE_NEIGHBOURS, &building, scratch, near);
                (n > 0 && (b as f64) < LONE_SHARE * n as f64).then(|| answers.point_at(at))
            },
        )
        .flatten()
        .collect()
}

/// The object points answered 3–6 with finite coordinates, indexed in 3-D for the votes of
/// [`lone_buildings`] and [`enclosed_vegetation`] over their nearest neighbours' answers.
struct Answers {
    /// Positions in `points` of the indexed points.
    held: Vec<usize>,
    /// Their coordinates (relative to the first of them) and their places in `held`.
    index: crate::knn::ColumnIndex,
}

impl Answers {
    /// The index of the object points `points` answered 3–6 in `class`, for votes over `k`
    /// neighbours; `None` when there are none (or more than a `u32` counts).
    fn new(cloud: &PointCloud, points: &[usize], class: &[u8], k: usize) -> Option<Self> {
        let finite = |i: usize| cloud.x[i].is_finite() && cloud.y[i].is_finite() && cloud.z[i].is_finite();
        let held: Vec<usize> =
            (0..points.len()).filter(|&k| finite(points[k]) && (3..=6).contains(&class[points[k]])).collect();
        let &first = held.first()?;
        if held.len() > u32::MAX as usize - 1 {
            return None;
        }
        let o = points[first];
        let origin = [cloud.x[o], cloud.y[o], cloud.z[o]];
        let coords: Vec<[f32; 3]> = held
            .iter()
            .map(|&k| {
                let i = points[k];
                [(cloud.x[i] - origin[0]) as f32, (cloud.y[i] - origin[1]) as f32, (cloud.z[i] - origin[2]) as f32]
            })
            .collect();
        let index = crate::knn::ColumnIndex::new(&coords, k + 1);
        Some(Self { held, index })
    }

    /// `f` of every indexed point (by its place in `held`), in the index's order: what
    /// [`Answers::count`] reads. The neighbours of a point are near each other in that order,
    /// not in `held`'s.
    fn by_position(&self, f: impl Fn(usize) -> bool + Sync) -> Vec<bool> {
        use rayon::prelude::*;
        (0..self.held.len() as u32).into_par_iter().map(|at| f(self.index.at(at).1 as usize)).collect()
    }

    /// The position in `points` of the indexed point at position `at` in the index.
    fn point_at(&self, at: u32) -> usize {
        self.held[self.index.at(at).1 as usize]
    }

    /// Of the `k` nearest other indexed points of the indexed point at position `at` (in the
    /// index's order), how many `building` (in the same order, [`Answers::by_position`]) says
    /// are building, and how many were read.
    fn count(
        &self,
        at: u32,
        k: usize,
        building: &[bool],
        scratch: &mut Vec<u64>,
        near: &mut Vec<(f32, u32)>,
    ) -> (usize, usize) {
        self.index.nearest_positions(self.index.at(at).0, k + 1, scratch, near);
        let (mut n, mut b) = (0usize, 0usize);
        for &(_, at) in near.iter().filter(|&&(_, other)| other != at).take(k) {
            n += 1;
            b += usize::from(building[at as usize]);
        }
        (b, n)
    }
}

/// Neighbours a vegetation point's answer is checked against ([`enclosed_vegetation`]).
pub const ENCLOSED_NEIGHBOURS: usize = 50;

/// Least share of a vegetation point's [`ENCLOSED_NEIGHBOURS`] that are building for it to be
/// building too ([`enclosed_vegetation`]).
pub const ENCLOSED_SHARE: f64 = 0.5;

/// Rounds of [`enclosed_vegetation`]: each reads the answers the round before left.
pub const ENCLOSED_ROUNDS: usize = 2;

/// Positions in `points` (the object points, with their classes in `class`) of the vegetation
/// points that a roof encloses, with the share of their neighbours called building: points
/// classed 3–5, `tall` (at least a building's height above the ground), of whose
/// [`ENCLOSED_NEIGHBOURS`] nearest object points (in 3-D) at least [`ENCLOSED_SHARE`] are
/// building. A roof's edge, a dormer, a chimney or a cluttered terrace is a patch the roof test
/// finds no plane in, inside a surface of building answers; a crown beside a roof has most of its
/// neighbours in its own canopy. The test runs [`ENCLOSED_ROUNDS`] times, each round on the
/// answers of the one before. Only points within six spacings in plan of a building answer are
/// read (a point farther away cannot have half of its neighbours on a roof at the survey's
/// density). Set on tuning data only (docs/pointcloud.md, "Roof patches the planes miss").
fn enclosed_vegetation(
    cloud: &PointCloud,
    points: &[usize],
    class: &[u8],
    tall: impl Fn(usize) -> bool,
    spacing: f64,
) -> Vec<(usize, f64)> {
    use crate::density::CellSet;
    use rayon::prelude::*;
    if !points.iter().any(|&i| class[i] == 6) {
        return Vec::new();
    }
    let Some(answers) = Answers::new(cloud, points, class, ENCLOSED_NEIGHBOURS) else { return Vec::new() };
    let held = &answers.held;
    let building: Vec<bool> = held.iter().map(|&k| class[points[k]] == 6).collect();
    // The plan cells within reach of a building answer.
    let cell = (2.0 * spacing).max(1.0);
    let key = |i: usize| ((cloud.x[i] / cell).floor() as i64, (cloud.y[i] / cell).floor() as i64);
    const REACH: i64 = 3;
    let mut near_roof = CellSet::default();
    let roof_cells: CellSet<(i64, i64)> =
        held.iter().zip(&building).filter(|(_, &b)| b).map(|(&k, _)| key(points[k])).collect();
    for &(c, r) in &roof_cells {
        for dc in -REACH..=REACH {
            for dr in -REACH..=REACH {
                near_roof.insert((c + dc, r + dr));
            }
        }
    }
    // The candidates by their positions in the index, in its order: one point's neighbours are
    // mostly the next one's.
    let mut candidates: Vec<u32> = (0..held.len() as u32)
        .filter(|&at| {
            let h = answers.index.at(at).1 as usize;
            !building[h] && tall(held[h]) && near_roof.contains(&key(points[held[h]]))
        })
        .collect();
    let mut found = Vec::new();
    let mut at_position = answers.by_position(|h| building[h]);
    for _ in 0..ENCLOSED_ROUNDS {
        let flips: Vec<(u32, f64)> = candidates
            .par_iter()
            .map_init(
                || (Vec::new(), Vec::new()),
                |(scratch, near), &at| {
                    let (b, n) = answers.count(at, ENCLOSED_NEIGHBOURS, &at_position, scratch, near);
                    let share = b as f64 / n.max(1) as f64;
                    (n > 0 && share >= ENCLOSED_SHARE).then_some((at, share))
                },
            )
            .flatten()
            .collect();
        if flips.is_empty() {
            break;
        }
        for &(at, share) in &flips {
            at_position[at as usize] = true;
            found.push((answers.point_at(at), share));
        }
        candidates.retain(|&at| !at_position[at as usize]);
    }
    found
}

fn scale(p: f32) -> u8 {
    (p * 255.0).round().clamp(0.0, 255.0) as u8
}

/// The model's class and probability for each row of `values`, in parallel.
pub fn predict_rows(model: &Model, values: &[f32]) -> Vec<(u8, f32)> {
    use rayon::prelude::*;
    // Blocks of rows, each tree over a whole block (Forest::probabilities_many); the same
    // answers as a row at a time.
    const BLOCK: usize = 256;
    let classes = model.forest.n_classes();
    let blocks: Vec<Vec<(u8, f32)>> = values
        .par_chunks(N_FEATURES * BLOCK)
        .map_init(Vec::new, |p, block| {
            p.resize(BLOCK * classes, 0.0);
            model.forest.probabilities_many(block, N_FEATURES, p);
            block.chunks_exact(N_FEATURES).zip(p.chunks_exact(classes)).map(|(row, p)| model.class_of(row, p)).collect()
        })
        .collect();
    blocks.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_lone_building_answer_in_a_canopy_goes_and_a_roof_stays() {
        // A 20 x 20 m roof of points every metre at 6 m, called building, and beside it a canopy
        // of 30 x 30 points every metre at 12-13 m, called vegetation but for three lone points
        // and a cluster of five.
        let mut cloud = PointCloud::default();
        let mut class = Vec::new();
        let lone = [(45, 45), (52, 60), (60, 52)];
        let cluster = [(50, 50), (50, 51), (51, 50), (51, 51), (52, 50)];
        for (x0, n, building) in [(0, 20, true), (40, 30, false)] {
            for i in 0..n {
                for j in 0..n {
                    let (x, y) = (x0 + i, x0 + j);
                    cloud.x.push(f64::from(x));
                    cloud.y.push(f64::from(y));
                    cloud.z.push(if building { 6.0 } else { 12.0 + 0.3 * f64::from((x * 7 + y * 3) % 4) });
                    let called = building || lone.contains(&(x, y)) || cluster.contains(&(x, y));
                    class.push(if called { 6 } else { 5 });
                }
            }
        }
        let points: Vec<usize> = (0..class.len()).collect();
        let mut found: Vec<(i32, i32)> = lone_buildings(&cloud, &points, &class)
            .into_iter()
            .map(|k| (cloud.x[k] as i32, cloud.y[k] as i32))
            .collect();
        found.sort_unstable();
        // The lone answers go; the roof and the cluster (four of twelve neighbours alike) stay.
        assert_eq!(found, lone.to_vec());
    }

    #[test]
    fn vegetation_a_roof_encloses_becomes_building_and_a_crown_beside_it_stays() {
        // A 20 x 20 m roof of points every metre at 6 m, called building but for a 4 x 4 m patch
        // of clutter in its middle (6.5-7.4 m) and its 2 m wide east edge, called vegetation;
        // beside it, 3 m away, a 12 x 12 m crown at 8-10 m called vegetation, and a hedge on the
        // roof's west side at 1.5 m (under a building's height).
        let mut cloud = PointCloud::default();
        let (mut class, mut hag) = (Vec::new(), Vec::new());
        let mut push = |x: i32, y: i32, z: f64, c: u8| {
            cloud.x.push(f64::from(x));
            cloud.y.push(f64::from(y));
            cloud.z.push(z);
            class.push(c);
            hag.push(z as f32);
        };
        for x in 0..20 {
            for y in 0..20 {
                let patch = (8..12).contains(&x) && (8..12).contains(&y);
                let edge = x >= 18;
                if patch {
                    push(x, y, 6.5 + 0.3 * f64::from((x * 7 + y * 3) % 4), 5);
                } else {
                    push(x, y, 6.0, if edge { 5 } else { 6 });
                }
            }
            push(-1, x, 1.5, 4);
        }
        for x in 23..35 {
            for y in 4..16 {
                push(x, y, 8.0 + 0.5 * f64::from((x * 5 + y * 3) % 5), 5);
            }
        }
        let points: Vec<usize> = (0..class.len()).collect();
        let flipped: Vec<usize> = enclosed_vegetation(&cloud, &points, &class, |k| hag[k] >= 2.0, 1.0)
            .into_iter()
            .map(|(k, share)| {
                assert!(share >= ENCLOSED_SHARE);
                k
            })
            .collect();
        let at = |k: usize| (cloud.x[k] as i32, cloud.y[k] as i32);
        // The patch and the edge join the roof; the crown and the low hedge stay vegetation.
        assert!(
            flipped.iter().all(|&k| (0..20).contains(&at(k).0) && cloud.z[k] >= 6.0),
            "{:?}",
            flipped.iter().map(|&k| at(k)).collect::<Vec<_>>()
        );
        for x in 8..12 {
            for y in 8..12 {
                assert!(flipped.iter().any(|&k| at(k) == (x, y)), "patch point ({x}, {y}) stays vegetation");
            }
        }
        let edge = flipped.iter().filter(|&&k| at(k).0 >= 18).count();
        assert_eq!(edge, 40, "the east edge's 40 points join the roof");
    }

    #[test]
    fn the_default_model_loads() {
        let m = Model::default_model().unwrap();
        assert_eq!(m.header.features.len(), N_FEATURES);
        assert!(m.header.classes.contains(&6));
        let back = Model::from_bytes(&m.to_bytes().unwrap()).unwrap();
        assert_eq!(back, m);
    }
}
