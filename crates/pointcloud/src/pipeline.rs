//! The classification pipeline a `pointcloud.classify` job runs, in order: noise (extended local
//! minimum, then statistical or radius outliers; classes 7 and 18), ground (SMRF or CSF; class
//! 2), height above ground (low noise within the ground filter's tolerance of the surface is
//! then ground: the sparse ground returns under a closed canopy), and the learned classes of the
//! remaining points (vegetation 3/4/5, building 6, other 1) with a per-point confidence. Steps that do not run leave the file's own
//! classes as they are. The result is written as LAZ with a `confidence` extra-bytes attribute.

use crate::csf::Csf;
use crate::density::Occupied;
use crate::learn::Model;
use crate::noise::{Noise, NoiseMethod};
use crate::reader::{check_header, stream_path_records, Limits, PointCloud, ReadError};
use crate::smrf::Smrf;
use crate::tiles::{Grid, Spool, Tiling};
use crate::writer::{rewrite, rewrite_from_records, OutputFormat, Rewrite, WriteError};
use crate::{elm::Elm, hag, learn};
use meridian_core::error::FieldError;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

/// Which steps run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Steps {
    pub noise: bool,
    pub ground: bool,
    pub hag: bool,
    pub classes: bool,
}

impl Default for Steps {
    fn default() -> Self {
        Self { noise: true, ground: true, hag: true, classes: true }
    }
}

/// The noise step's parameters, as PDAL's `filters.outlier` (and `filters.elm`) name them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NoiseParams {
    /// `radius` (isolated points, the default) or `statistical` (PDAL's statistical outlier test).
    pub method: String,
    pub mean_k: usize,
    pub multiplier: f64,
    /// The radius test's radius; `None`: four times the nominal point spacing (1/√density of the
    /// points over the area they occupy), so that only points far from any other are noise.
    pub radius: Option<f64>,
    pub min_k: usize,
    /// Run the extended local minimum filter for low outliers first (off by default: in a
    /// sparse closed canopy it takes the few ground returns for low noise).
    pub elm: bool,
}

impl Default for NoiseParams {
    fn default() -> Self {
        Self { method: "radius".into(), mean_k: 8, multiplier: 2.0, radius: None, min_k: 2, elm: false }
    }
}

/// The ground step's parameters: `method` `smrf` (PDAL `filters.smrf` names) or `csf`
/// (`filters.csf` names).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GroundParams {
    pub method: String,
    /// SMRF's cell; `None`: 1 m, or the point spacing where the points are sparser (a grid of
    /// mostly empty cells filters its own interpolation, not the points).
    #[serde(default)]
    pub cell: Option<f64>,
    pub slope: f64,
    pub window: f64,
    pub scalar: f64,
    pub threshold: f64,
    pub cut: f64,
    pub resolution: f64,
    pub rigidness: u32,
    pub step: f64,
    pub iterations: u32,
    pub smooth: bool,
    pub hdiff: f64,
    /// Take raised plateaus (roofs wider than the window) back out of the ground
    /// ([`crate::rules::Rules::raised_ground`]).
    #[serde(default = "yes")]
    pub roofs: bool,
    /// Take the ground at z ≈ 0 when the file is height-normalised ([`crate::normalised`])
    /// rather than filter it with SMRF.
    #[serde(default = "yes")]
    pub normalised: bool,
    /// Low noise (class 7) within the ground filter's tolerance of the ground surface is ground
    /// (`threshold`; 0.15 m on a height-normalised file): the few ground returns under a closed
    /// canopy are far from every other point and below their neighbours, which the outlier
    /// test reads as low noise.
    #[serde(default = "yes")]
    pub low_noise: bool,
    /// Ground points more than this above the ground surface (the lowest ground point of each
    /// metre, interpolated) are given back to the classes step, as grass and low vegetation
    /// (LAStools' `lasground -offset`); `None` (the default: on the training files any offset
    /// lost more ground than it found grass, docs/pointcloud.md) keeps every point the filter
    /// called ground.
    #[serde(default)]
    pub offset: Option<f64>,
}

impl Default for GroundParams {
    fn default() -> Self {
        let s = Smrf::isprs();
        let c = Csf::default();
        Self {
            method: "smrf".into(),
            cell: None,
            slope: s.slope,
            window: s.window,
            scalar: s.scalar,
            threshold: s.threshold,
            cut: s.cut,
            resolution: c.resolution,
            rigidness: c.rigidness,
            step: c.step,
            iterations: c.iterations,
            smooth: c.smooth,
            hdiff: c.hdiff,
            roofs: true,
            normalised: true,
            low_noise: true,
            offset: None,
        }
    }
}

/// The classes step's parameters: `method` `combined` (the model where it is confident, the
/// geometric rules elsewhere; the default), `rules`, `model` or `heights` (vegetation by height
/// band alone, the PDAL-style baseline); `water` whether ground points on water become class 9
/// ([`crate::rules::Rules::water`]; on by default).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassesParams {
    pub method: learn::Method,
    #[serde(default = "yes")]
    pub water: bool,
}

impl Default for ClassesParams {
    fn default() -> Self {
        Self { method: learn::Method::Combined, water: true }
    }
}

fn yes() -> bool {
    true
}

/// Everything a classification runs with.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PipelineParams {
    pub steps: Steps,
    pub noise: NoiseParams,
    pub ground: GroundParams,
    #[serde(default)]
    pub classes: ClassesParams,
    /// `default`: the model built in (or configured).
    pub model: String,
}

/// Why a classification did not finish.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error("{step}: {detail}")]
    Step { step: &'static str, detail: String },
    #[error("writing: {0}")]
    Write(String),
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    #[error("cancelled")]
    Cancelled,
}

/// What a classification did.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub points: u64,
    /// Points per class code in the result.
    pub histogram: BTreeMap<String, u64>,
    /// Points per class the steps assigned (the rest kept the file's class).
    pub assigned: BTreeMap<String, u64>,
    /// Seconds per step: read, noise, ground, hag, classes, write.
    pub timings: BTreeMap<String, f64>,
    pub points_per_second: f64,
    pub model: Option<String>,
    /// Tiles the file was classified in (1: whole).
    #[serde(default = "one")]
    pub tiles: usize,
    /// Whether the file was read as height-normalised (Z already the height above ground) and
    /// its ground taken at z ≈ 0 rather than filtered ([`crate::normalised`]).
    #[serde(default)]
    pub height_normalised: bool,
}

fn one() -> usize {
    1
}

fn num(
    obj: &serde_json::Map<String, Value>,
    key: &str,
    ptr: &str,
    lo: f64,
    hi: f64,
    errors: &mut Vec<FieldError>,
) -> Option<f64> {
    let v = obj.get(key)?;
    match v.as_f64() {
        Some(x) if x.is_finite() && x >= lo && x <= hi => Some(x),
        _ => {
            errors.push(FieldError::new(
                format!("{ptr}/{key}"),
                "out_of_range",
                format!("{key} is a number from {lo} to {hi}"),
            ));
            None
        }
    }
}

fn boolean(obj: &serde_json::Map<String, Value>, key: &str, ptr: &str, errors: &mut Vec<FieldError>) -> Option<bool> {
    let v = obj.get(key)?;
    v.as_bool().or_else(|| {
        errors.push(FieldError::new(format!("{ptr}/{key}"), "invalid_type", format!("{key} is true or false")));
        None
    })
}

fn unknown(obj: &serde_json::Map<String, Value>, known: &[&str], ptr: &str, errors: &mut Vec<FieldError>) {
    for k in obj.keys() {
        if !known.contains(&k.as_str()) {
            errors.push(FieldError::new(
                format!("{ptr}/{}", k.replace('~', "~0").replace('/', "~1")),
                "unknown_field",
                format!("unknown parameter `{k}`; known: {}", known.join(", ")),
            ));
        }
    }
}

fn object<'a>(
    v: Option<&'a Value>,
    ptr: &str,
    errors: &mut Vec<FieldError>,
) -> Option<&'a serde_json::Map<String, Value>> {
    match v {
        None => None,
        Some(Value::Object(o)) => Some(o),
        Some(_) => {
            errors.push(FieldError::new(ptr, "invalid_type", "an object"));
            None
        }
    }
}

impl PipelineParams {
    /// Parses a request (`{}` for the defaults); every mistake is a field error with its pointer.
    pub fn from_json(body: &Value) -> Result<Self, Vec<FieldError>> {
        let mut p = Self { model: "default".into(), ..Self::default() };
        let mut errors = Vec::new();
        let Some(obj) = body.as_object() else {
            return Err(vec![FieldError::new("", "invalid_type", "the body is a JSON object")]);
        };
        unknown(obj, &["steps", "noise", "ground", "classes", "model"], "", &mut errors);
        match obj.get("steps") {
            None => {}
            Some(Value::Array(steps)) => {
                p.steps = Steps { noise: false, ground: false, hag: false, classes: false };
                for (i, s) in steps.iter().enumerate() {
                    match s.as_str() {
                        Some("noise") => p.steps.noise = true,
                        Some("ground") => p.steps.ground = true,
                        Some("hag") => p.steps.hag = true,
                        Some("classes") => p.steps.classes = true,
                        _ => errors.push(FieldError::new(
                            format!("/steps/{i}"),
                            "unknown_step",
                            "steps are noise, ground, hag and classes",
                        )),
                    }
                }
                if steps.is_empty() {
                    errors.push(FieldError::new("/steps", "required", "name at least one step"));
                }
            }
            Some(_) => errors.push(FieldError::new("/steps", "invalid_type", "steps is an array of step names")),
        }
        if let Some(n) = object(obj.get("noise"), "/noise", &mut errors) {
            unknown(n, &["method", "mean_k", "multiplier", "radius", "min_k", "elm"], "/noise", &mut errors);
            match n.get("method").map(Value::as_str) {
                None => {}
                Some(Some(m @ ("statistical" | "radius"))) => p.noise.method = m.to_owned(),
                Some(_) => errors.push(FieldError::new(
                    "/noise/method",
                    "unknown_method",
                    "noise methods are statistical and radius",
                )),
            }
            if let Some(v) = num(n, "mean_k", "/noise", 1.0, 100.0, &mut errors) {
                p.noise.mean_k = v as usize;
            }
            if let Some(v) = num(n, "multiplier", "/noise", 0.1, 100.0, &mut errors) {
                p.noise.multiplier = v;
            }
            // null: the default, four spacings.
            if n.get("radius").is_some_and(|v| !v.is_null()) {
                if let Some(v) = num(n, "radius", "/noise", 0.01, 100.0, &mut errors) {
                    p.noise.radius = Some(v);
                }
            }
            if let Some(v) = num(n, "min_k", "/noise", 1.0, 100.0, &mut errors) {
                p.noise.min_k = v as usize;
            }
            if let Some(v) = boolean(n, "elm", "/noise", &mut errors) {
                p.noise.elm = v;
            }
        }
        if let Some(g) = object(obj.get("ground"), "/ground", &mut errors) {
            unknown(
                g,
                &[
                    "method",
                    "cell",
                    "slope",
                    "window",
                    "scalar",
                    "threshold",
                    "cut",
                    "resolution",
                    "rigidness",
                    "step",
                    "iterations",
                    "smooth",
                    "hdiff",
                    "roofs",
                    "offset",
                    "normalised",
                    "low_noise",
                ],
                "/ground",
                &mut errors,
            );
            match g.get("method").map(Value::as_str) {
                None => {}
                Some(Some(m @ ("smrf" | "csf"))) => {
                    p.ground.method = m.to_owned();
                    if m == "csf" {
                        // CSF's own class threshold default, unless given.
                        p.ground.threshold = Csf::default().threshold;
                    }
                }
                Some(_) => {
                    errors.push(FieldError::new("/ground/method", "unknown_method", "ground methods are smrf and csf"))
                }
            }
            let r = &mut p.ground;
            let fields: [(&str, f64, f64, &mut f64); 7] = [
                ("slope", 0.0, 10.0, &mut r.slope),
                ("window", 0.5, 500.0, &mut r.window),
                ("scalar", 0.0, 100.0, &mut r.scalar),
                ("threshold", 0.01, 100.0, &mut r.threshold),
                ("cut", 0.0, 500.0, &mut r.cut),
                ("resolution", 0.05, 100.0, &mut r.resolution),
                ("step", 0.01, 10.0, &mut r.step),
            ];
            for (key, lo, hi, slot) in fields {
                if let Some(v) = num(g, key, "/ground", lo, hi, &mut errors) {
                    *slot = v;
                }
            }
            // null: the default, 1 m or the spacing.
            if g.get("cell").is_some_and(|v| !v.is_null()) {
                if let Some(v) = num(g, "cell", "/ground", 0.05, 100.0, &mut errors) {
                    r.cell = Some(v);
                }
            }
            if let Some(v) = num(g, "hdiff", "/ground", 0.0, 100.0, &mut errors) {
                r.hdiff = v;
            }
            if let Some(v) = num(g, "rigidness", "/ground", 1.0, 3.0, &mut errors) {
                r.rigidness = v as u32;
            }
            if let Some(v) = num(g, "iterations", "/ground", 1.0, 10_000.0, &mut errors) {
                r.iterations = v as u32;
            }
            if let Some(v) = boolean(g, "smooth", "/ground", &mut errors) {
                r.smooth = v;
            }
            if let Some(v) = boolean(g, "roofs", "/ground", &mut errors) {
                r.roofs = v;
            }
            if let Some(v) = boolean(g, "normalised", "/ground", &mut errors) {
                r.normalised = v;
            }
            if let Some(v) = boolean(g, "low_noise", "/ground", &mut errors) {
                r.low_noise = v;
            }
            match g.get("offset") {
                Some(Value::Null) => r.offset = None,
                Some(_) => {
                    if let Some(v) = num(g, "offset", "/ground", 0.0, 100.0, &mut errors) {
                        r.offset = Some(v);
                    }
                }
                None => {}
            }
        }
        if let Some(c) = object(obj.get("classes"), "/classes", &mut errors) {
            unknown(c, &["method", "water"], "/classes", &mut errors);
            if let Some(w) = boolean(c, "water", "/classes/water", &mut errors) {
                p.classes.water = w;
            }
            match c.get("method").map(Value::as_str) {
                None => {}
                Some(Some("combined")) => p.classes.method = learn::Method::Combined,
                Some(Some("rules")) => p.classes.method = learn::Method::Rules,
                Some(Some("model")) => p.classes.method = learn::Method::Model,
                Some(Some("heights")) => p.classes.method = learn::Method::Heights,
                Some(_) => errors.push(FieldError::new(
                    "/classes/method",
                    "unknown_method",
                    "class methods are combined, rules, model and heights",
                )),
            }
        }
        match obj.get("model") {
            None => {}
            Some(Value::String(m)) if m == "default" || m == crate::learn::FORMAT => {}
            Some(_) => errors.push(FieldError::new(
                "/model",
                "unknown_model",
                format!("the model is `default` (the configured one, {})", crate::learn::FORMAT),
            )),
        }
        if errors.is_empty() {
            Ok(p)
        } else {
            Err(errors)
        }
    }

    /// SMRF with these parameters over points `spacing` apart (the cell from the spacing unless
    /// given).
    fn smrf(&self, spacing: f64) -> Smrf {
        let g = &self.ground;
        let smrf = Smrf {
            cell: g.cell.unwrap_or(Smrf::isprs().cell),
            slope: g.slope,
            window: g.window,
            scalar: g.scalar,
            threshold: g.threshold,
            cut: g.cut,
            ..Smrf::isprs()
        };
        if g.cell.is_some() {
            smrf
        } else {
            smrf.for_spacing(spacing)
        }
    }

    fn csf(&self) -> Csf {
        let g = &self.ground;
        Csf {
            resolution: g.resolution,
            rigidness: g.rigidness,
            step: g.step,
            threshold: g.threshold,
            iterations: g.iterations,
            smooth: g.smooth,
            hdiff: g.hdiff,
            ..Csf::default()
        }
    }
}

/// Four times the nominal spacing of the points over the area they occupy
/// ([`crate::density::spacing`]), at least half a metre: only points far from any other are
/// noise, however sparse the cloud.
fn auto_radius(spacing: f64) -> f64 {
    (4.0 * spacing).max(0.5)
}

/// Progress over the steps: each step reports 0–1 of its own share.
struct Stages<'a> {
    progress: &'a (dyn Fn(f64) -> bool + Sync),
}

impl Stages<'_> {
    fn at(&self, start: f64, share: f64) -> impl Fn(f64) -> bool + Sync + '_ {
        move |f: f64| (self.progress)(start + share * f.clamp(0.0, 1.0))
    }

    fn check(&self, at: f64) -> Result<(), PipelineError> {
        if (self.progress)(at) {
            Ok(())
        } else {
            Err(PipelineError::Cancelled)
        }
    }
}

/// Adds `t`'s elapsed seconds to the step's timing (tiles add up).
fn timed(timings: &mut BTreeMap<String, f64>, name: &str, t: Instant) {
    *timings.entry(name.to_owned()).or_default() += t.elapsed().as_secs_f64();
}

/// Scales coordinates in the file's unit to metres.
fn to_metres(cloud: &mut PointCloud, metres_per_unit: f64) {
    if (metres_per_unit - 1.0).abs() > 1e-12 {
        for v in cloud.x.iter_mut().chain(cloud.y.iter_mut()).chain(cloud.z.iter_mut()) {
            *v *= metres_per_unit;
        }
    }
}

/// Classifies the LAS/LAZ file `source` and writes the result to `output` as LAZ (every
/// attribute of the source kept, the classes replaced, a `confidence` attribute added). Blocking.
///
/// `metres_per_unit` is the file's linear unit (0.3048 for feet; 1 for metres or an unknown
/// CRS): every parameter is in metres, so the coordinates are scaled to metres before any step
/// (the output keeps the file's own coordinates; only classes are written). A file of more than
/// `tiling.tile_points` points is classified in tiles ([`crate::tiles`]).
#[allow(clippy::too_many_arguments)]
pub fn classify_file(
    source: &Path,
    output: &Path,
    limits: Limits,
    params: &PipelineParams,
    model: Option<&Model>,
    metres_per_unit: f64,
    tiling: Tiling,
    progress: &(dyn Fn(f64) -> bool + Sync),
) -> Result<Report, PipelineError> {
    let all = Instant::now();
    let metres_per_unit = if metres_per_unit.is_finite() && metres_per_unit > 0.0 { metres_per_unit } else { 1.0 };
    let stages = Stages { progress };
    let mut timings = BTreeMap::new();
    let t = Instant::now();
    let info = {
        let mut file = std::io::BufReader::new(std::fs::File::open(source)?);
        check_header(&mut file, limits)?
    };
    let n = usize::try_from(info.points).map_err(|_| PipelineError::Step {
        step: "read",
        detail: "more points than this machine can address".into(),
    })?;
    let mut height_normalised = false;
    let dir = output.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let (classes, confidence, assigned, tiles, kept) = if info.points <= tiling.tile_points {
        let mut kept = KeptRecords::new(dir, info.compressed)?;
        let mut cloud: Option<PointCloud> = None;
        stream_path_records(source, limits, |info, batch, records| {
            kept.keep(info, batch, records)?;
            let all =
                cloud.get_or_insert_with(|| PointCloud::with_capacity(n, batch.rgb.is_some(), batch.nir.is_some()));
            all.append(batch);
            Ok(())
        })?;
        let kept = kept.finish()?;
        let mut cloud = cloud.unwrap_or_default();
        to_metres(&mut cloud, metres_per_unit);
        timed(&mut timings, "read", t);
        stages.check(0.1)?;
        let spacing = crate::density::spacing(&cloud.x, &cloud.y);
        let out = classify_cloud(&cloud, spacing, params, model, &mut timings, &stages.at(0.1, 0.75))?;
        height_normalised = out.normalised;
        let mut assigned: BTreeMap<String, u64> = BTreeMap::new();
        for (&c, _) in out.classes.iter().zip(&out.assigned).filter(|(_, &a)| a) {
            *assigned.entry(c.to_string()).or_default() += 1;
        }
        (out.classes, out.confidence, assigned, 1, kept)
    } else {
        let grid = Grid::plan(&info, tiling, metres_per_unit);
        let colour = matches!(info.point_format, 2 | 3 | 5 | 7 | 8 | 10);
        let mut spool = Spool::new(dir, grid.len(), colour, matches!(info.point_format, 8 | 10))?;
        let mut seen = 0u64;
        let mut tiles_of = Vec::with_capacity(4);
        // One spacing for every tile, that of the whole file (as if it were read whole): its
        // first pass is made as the points stream, its second from the spool.
        let m = metres_per_unit;
        let [minx, miny, _, maxx, maxy, _] = info.bounds;
        let mut occupied = Occupied::first([minx * m, miny * m, maxx * m, maxy * m], n);
        let mut kept = KeptRecords::new(dir, info.compressed)?;
        stream_path_records(source, limits, |info, batch, records| {
            kept.keep(info, batch, records)?;
            for i in 0..batch.len() {
                occupied.add(batch.x[i] * m, batch.y[i] * m);
                grid.tiles_of(batch.x[i], batch.y[i], &mut tiles_of);
                for (k, &tile) in tiles_of.iter().enumerate() {
                    spool.push(tile, seen + i as u64, k == 0, batch, i)?;
                }
            }
            seen += batch.len() as u64;
            if (stages.progress)(0.1 * seen as f64 / n.max(1) as f64) {
                Ok(())
            } else {
                Err(ReadError::Io(std::io::Error::new(std::io::ErrorKind::Interrupted, "cancelled")))
            }
        })
        .map_err(|e| match e {
            ReadError::Io(e) if e.kind() == std::io::ErrorKind::Interrupted => PipelineError::Cancelled,
            e => PipelineError::Read(e),
        })?;
        spool.finish()?;
        let kept = kept.finish()?;
        let spacing = crate::density::spacing_over(&occupied, n, |second| {
            (0..grid.len())
                .into_par_iter()
                .map(|tile| {
                    let mut cells = second.empty();
                    spool.for_each_owned(tile, |x, y| cells.add(x * m, y * m))?;
                    Ok::<_, std::io::Error>(cells)
                })
                .try_reduce(|| second.empty(), |a, b| Ok(a.merge(b)))
        })?;
        drop(occupied);
        timed(&mut timings, "read", t);
        let mut classes = vec![0u8; n];
        let mut confidence = vec![255u8; n];
        let mut assigned: BTreeMap<String, u64> = BTreeMap::new();
        let spooled: u64 = spool.counts().iter().sum();
        let mut done = 0u64;
        let mut tiles = 0;
        for tile in 0..grid.len() {
            let count = spool.counts()[tile];
            if count == 0 {
                continue;
            }
            let t = Instant::now();
            let mut points = spool.load(tile)?;
            to_metres(&mut points.cloud, metres_per_unit);
            timed(&mut timings, "read", t);
            let (start, share) = (done as f64 / spooled as f64, count as f64 / spooled as f64);
            let within = stages.at(0.1 + 0.75 * start, 0.75 * share);
            let out = classify_cloud(&points.cloud, spacing, params, model, &mut timings, &within)?;
            height_normalised |= out.normalised;
            for (j, &i) in points.index.iter().enumerate() {
                if points.owned[j] {
                    let i = i as usize;
                    classes[i] = out.classes[j];
                    confidence[i] = out.confidence[j];
                    if out.assigned[j] {
                        *assigned.entry(out.classes[j].to_string()).or_default() += 1;
                    }
                }
            }
            done += count;
            tiles += 1;
        }
        (classes, confidence, assigned, tiles, kept)
    };
    stages.check(0.85)?;
    let mut histogram: BTreeMap<String, u64> = BTreeMap::new();
    for &c in &classes {
        *histogram.entry(c.to_string()).or_default() += 1;
    }

    // 5. The new version.
    let t = Instant::now();
    let opts = Rewrite {
        format: OutputFormat::Laz,
        bbox: None,
        classes: None,
        classification: Some(classes),
        confidence: Some(confidence),
        crs: None,
    };
    let mut file = std::io::BufWriter::new(std::fs::File::create(output)?);
    let written = match &kept {
        Some(records) => rewrite_from_records(source, records.path(), &mut file, &opts, &stages.at(0.85, 0.15)),
        None => rewrite(source, &mut file, &opts, &stages.at(0.85, 0.15)),
    };
    drop(kept);
    written.map_err(|e| match e {
        WriteError::Cancelled => PipelineError::Cancelled,
        e => PipelineError::Write(e.to_string()),
    })?;
    std::io::Write::flush(&mut file)?;
    timed(&mut timings, "write", t);
    let seconds = all.elapsed().as_secs_f64();
    timings.insert("total".into(), seconds);
    for v in timings.values_mut() {
        *v = (*v * 1000.0).round() / 1000.0;
    }
    Ok(Report {
        points: n as u64,
        histogram,
        assigned,
        timings,
        points_per_second: (n as f64 / seconds.max(1e-9)).round(),
        model: params
            .steps
            .classes
            .then(|| model.map(|m| format!("{} v{}", m.header.format, m.header.version)))
            .flatten(),
        tiles,
        height_normalised,
    })
}

/// The records of a LAZ file as a job decodes them, written as they stream to a temporary file
/// beside the output, so that the writer does not decode the file a second time. An uncompressed
/// file keeps none (the writer reads it as it is), and a batch whose records are not the header's
/// record length each gives the keeping up. The file is removed when dropped.
struct KeptRecords {
    file: Option<tempfile::NamedTempFile>,
    out: Option<std::io::BufWriter<std::fs::File>>,
}

impl KeptRecords {
    fn new(dir: &Path, compressed: bool) -> std::io::Result<Self> {
        if !compressed {
            return Ok(Self { file: None, out: None });
        }
        let file = tempfile::Builder::new().prefix(".records-").tempfile_in(dir)?;
        let out = std::io::BufWriter::with_capacity(1 << 20, file.as_file().try_clone()?);
        Ok(Self { file: Some(file), out: Some(out) })
    }

    fn keep(
        &mut self,
        info: &crate::reader::PointCloudInfo,
        batch: &PointCloud,
        records: &[u8],
    ) -> std::io::Result<()> {
        let Some(out) = self.out.as_mut() else { return Ok(()) };
        if records.len() as u64 == batch.len() as u64 * u64::from(info.record_length) {
            std::io::Write::write_all(out, records)
        } else {
            (self.out, self.file) = (None, None);
            Ok(())
        }
    }

    /// The file of every record, once all are kept; `None` when they were not.
    fn finish(mut self) -> std::io::Result<Option<tempfile::NamedTempFile>> {
        match self.out.as_mut() {
            Some(out) => std::io::Write::flush(out).map(|()| self.file.take()),
            None => Ok(None),
        }
    }
}

/// The classes the steps give one cloud (in metres).
struct Classified {
    classes: Vec<u8>,
    confidence: Vec<u8>,
    /// Whether a step set the point's class (rather than the file's own class staying).
    assigned: Vec<bool>,
    /// Whether the ground was taken at z ≈ 0 ([`crate::normalised`]).
    normalised: bool,
}

/// Noise, ground, height above ground and classes over one cloud (a whole file or a tile with
/// its buffer), `spacing` being the nominal spacing of the whole file; `progress` gets 0–1 of
/// this cloud's share.
fn classify_cloud(
    cloud: &PointCloud,
    spacing: f64,
    params: &PipelineParams,
    model: Option<&Model>,
    timings: &mut BTreeMap<String, f64>,
    progress: &(dyn Fn(f64) -> bool + Sync),
) -> Result<Classified, PipelineError> {
    let stages = Stages { progress };
    let n = cloud.len();
    let mut classes = cloud.classification.clone();
    let mut confidence = vec![255u8; n];
    let mut assigned = vec![false; n];
    let step =
        |step: &'static str| move |e: &dyn std::fmt::Display| PipelineError::Step { step, detail: e.to_string() };

    // 1. Noise.
    let mut noise = vec![0u8; n];
    if params.steps.noise {
        let t = Instant::now();
        if params.noise.elm {
            let low = Elm::for_spacing(spacing).noise(&cloud.x, &cloud.y, &cloud.z);
            for (k, l) in noise.iter_mut().zip(low) {
                if l {
                    *k = 7;
                }
            }
        }
        let method = if params.noise.method == "radius" { NoiseMethod::Radius } else { NoiseMethod::Statistical };
        let filter = Noise {
            method,
            mean_k: params.noise.mean_k,
            multiplier: params.noise.multiplier,
            radius: params.noise.radius.unwrap_or_else(|| auto_radius(spacing)),
            min_k: params.noise.min_k,
            ..Noise::default()
        };
        let found = filter.classify(&cloud.x, &cloud.y, &cloud.z, &stages.at(0.0, 0.2)).map_err(|e| match e {
            crate::noise::NoiseError::Cancelled => PipelineError::Cancelled,
            e => step("noise")(&e),
        })?;
        for (k, f) in noise.iter_mut().zip(found) {
            if *k == 0 {
                *k = f;
            }
        }
        timed(timings, "noise", t);
    } else {
        for (k, &c) in noise.iter_mut().zip(&cloud.classification) {
            if c == 7 || c == 18 {
                *k = c;
            }
        }
    }
    stages.check(0.2)?;

    // 2. Ground (at z ≈ 0 in a height-normalised file, which SMRF would read as terrain).
    let mut normalised = false;
    let mut ground: Vec<bool> = if params.steps.ground {
        let t = Instant::now();
        let selected: Vec<bool> = noise.iter().map(|&k| k == 0).collect();
        let normalised_ground = (params.ground.method == "smrf" && params.ground.normalised)
            .then(|| crate::normalised::ground(&cloud.x, &cloud.y, &cloud.z, &selected, spacing))
            .flatten();
        normalised = normalised_ground.is_some();
        let g = if let Some(g) = normalised_ground {
            g
        } else if params.ground.method == "csf" {
            params.csf().classify(&cloud.x, &cloud.y, &cloud.z, Some(&selected), &stages.at(0.2, 0.27)).map_err(
                |e| match e {
                    crate::csf::CsfError::Cancelled => PipelineError::Cancelled,
                    e => step("ground")(&e),
                },
            )?
        } else {
            params
                .smrf(spacing)
                .classify_cloud_without(cloud, &noise.iter().map(|&k| k != 0).collect::<Vec<_>>())
                .map_err(|e| step("ground")(&e))?
        };
        let mut g = g;
        if params.ground.roofs && !normalised {
            crate::rules::Rules::default().lower_raised_ground(&cloud.x, &cloud.y, &cloud.z, &mut g, spacing);
        }
        timed(timings, "ground", t);
        g
    } else {
        cloud.classification.iter().map(|&c| c == 2).collect()
    };
    stages.check(0.47)?;

    // 3. Height above ground.
    // The ground step needs the heights too when noise ran: low noise on the surface is ground.
    let restore_low_noise = params.steps.noise && params.steps.ground && params.ground.low_noise;
    let need_hag = params.steps.hag || params.steps.classes || restore_low_noise;
    let heights = if need_hag {
        let t = Instant::now();
        let h = hag::height_above_ground(&cloud.x, &cloud.y, &cloud.z, &ground, 1.0).map_err(|e| step("hag")(&e))?;
        if let (true, Some(offset)) = (params.steps.ground, params.ground.offset) {
            crate::rules::trim_ground(&mut ground, &h, offset);
        }
        if restore_low_noise {
            // Low noise that lies on the ground surface is ground: under a closed canopy the
            // few ground returns are far from every other point, which is what the outlier test
            // looks for, and below their neighbours, which makes them low; a multipath point
            // lies metres under the surface. The tolerance is the ground filter's own.
            let tolerance = if normalised { crate::normalised::TOLERANCE } else { params.ground.threshold };
            restore_surface_noise(&mut noise, &mut ground, &h, tolerance);
        }
        timed(timings, "hag", t);
        Some(h)
    } else {
        None
    };
    stages.check(0.53)?;

    // 4. Learned classes.
    let mut learned: Option<(Vec<u8>, Vec<u8>)> = None;
    let mut water_points: Option<Vec<bool>> = None;
    if params.steps.classes {
        let model = model.ok_or_else(|| PipelineError::Step { step: "classes", detail: "no model loaded".into() })?;
        let t = Instant::now();
        let h = heights.as_deref().unwrap_or(&[]);
        let how = learn::Classifier {
            method: params.classes.method,
            model: Some(model),
            // One set of vegetation bands whichever step classes a point: the model's.
            rules: crate::rules::Rules {
                vegetation_heights: model.header.vegetation_heights,
                ..crate::rules::Rules::default()
            },
            spacing,
        };
        let out =
            learn::classify_objects_by(cloud, &ground, &noise, h, &how, &stages.at(0.53, 0.47)).map_err(
                |e| match e {
                    learn::LearnError::Cancelled => PipelineError::Cancelled,
                    e => step("classes")(&e),
                },
            )?;
        if params.classes.water {
            let water = how.rules.water(&cloud.x, &cloud.y, &cloud.z, &ground, &cloud.number_of_returns, spacing);
            water_points = Some(water);
        }
        timed(timings, "classes", t);
        learned = Some(out);
    }
    stages.check(1.0)?;

    // The classes: what each step decided, the file's own class elsewhere.
    for i in 0..n {
        let mut c = classes[i];
        if params.steps.ground {
            if ground[i] {
                c = 2;
            } else if c == 2 {
                c = 1;
            }
        }
        if params.steps.noise {
            if noise[i] != 0 {
                c = noise[i];
            } else if c == 7 || c == 18 {
                c = 1;
            }
        }
        if let Some((lc, lconf)) = &learned {
            if !ground[i] && noise[i] == 0 {
                c = lc[i];
                confidence[i] = lconf[i];
            }
        }
        if water_points.as_ref().is_some_and(|w| w[i]) && ground[i] && noise[i] == 0 {
            c = 9;
        }
        assigned[i] = c != classes[i] || (params.steps.ground && ground[i]) || (params.steps.noise && noise[i] != 0);
        classes[i] = c;
    }
    Ok(Classified { classes, confidence, assigned, normalised })
}

/// Turns the low noise points (class 7) within `tolerance` of the ground surface (`hag`, their
/// heights over it) into ground. High noise and points far under the surface stay noise.
fn restore_surface_noise(noise: &mut [u8], ground: &mut [bool], hag: &[f32], tolerance: f64) {
    for ((k, g), &h) in noise.iter_mut().zip(ground.iter_mut()).zip(hag) {
        if *k == crate::noise::LOW_NOISE && f64::from(h).abs() <= tolerance {
            *k = 0;
            *g = true;
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// Low noise on the surface becomes ground; low noise under it, high noise and the points
    /// that were never noise stay as they were.
    #[test]
    fn low_noise_on_the_ground_surface_is_ground() {
        let mut noise = vec![7, 7, 7, 18, 0, 7];
        let mut ground = vec![false, false, false, false, false, false];
        let hag = [0.1, -0.4, -3.0, 0.1, 5.0, f32::NAN];
        restore_surface_noise(&mut noise, &mut ground, &hag, 0.45);
        assert_eq!(noise, [0, 0, 7, 18, 0, 7]);
        assert_eq!(ground, [true, true, false, false, false, false]);
    }

    /// The body docs/pointcloud.md shows, nulls included, is the defaults.
    #[test]
    fn the_documented_body_is_the_defaults() {
        let body = serde_json::json!({
            "steps": ["noise", "ground", "hag", "classes"],
            "noise": {"method": "radius", "radius": null, "min_k": 2, "mean_k": 8, "multiplier": 2.0, "elm": false},
            "ground": {"method": "smrf", "cell": null, "slope": 0.15, "window": 24.0, "scalar": 1.0, "threshold": 0.45,
                       "cut": 0.0, "roofs": true, "normalised": true, "low_noise": true, "offset": null},
            "classes": {"method": "combined", "water": true},
            "model": "default"
        });
        let parsed = PipelineParams::from_json(&body).unwrap();
        assert_eq!(parsed, PipelineParams::from_json(&serde_json::json!({})).unwrap());
        assert_eq!(parsed.classes.method, learn::Method::Combined);
        assert!(parsed.ground.roofs && parsed.ground.offset.is_none() && parsed.ground.cell.is_none());
    }

    #[test]
    fn class_methods_and_ground_options_are_checked() {
        let p = PipelineParams::from_json(&serde_json::json!({
            "classes": {"method": "heights"}, "ground": {"roofs": false, "offset": 0.2, "cell": 2}
        }))
        .unwrap();
        assert_eq!(p.classes.method, learn::Method::Heights);
        assert_eq!((p.ground.roofs, p.ground.offset, p.ground.cell), (false, Some(0.2), Some(2.0)));
        let errors = PipelineParams::from_json(&serde_json::json!({
            "classes": {"method": "magic", "depth": 3}, "ground": {"offset": -1, "roofs": "yes"}
        }))
        .unwrap_err();
        let pointers: Vec<&str> = errors.iter().map(|e| e.pointer.as_str()).collect();
        for p in ["/classes/method", "/classes/depth", "/ground/offset", "/ground/roofs"] {
            assert!(pointers.contains(&p), "{p} in {pointers:?}");
        }
    }
}
