//! The digital-twin engine: OGC 3D Tiles 1.1 built from footprint polygons (extruded to solids)
//! and, optionally, a terrain height grid. It owns the geometry (ENU frame, triangulation,
//! extrusion, terrain mesh), the glTF 2.0 binary content with `EXT_mesh_features` and
//! `EXT_structural_metadata`, and the quadtree `tileset.json`; it knows nothing of HTTP or the
//! store. [`service`] is the area built on it: twins over the store's features and DEMs, the
//! clock, sensors, readings, MQTT ingest and the live feed, without HTTP. See docs/twin.md.
//!
//! ```
//! use meridian_twin::{build_tileset, Footprint, TilesetOptions};
//! let square = vec![vec![[153.0, -27.5], [153.0001, -27.5], [153.0001, -27.4999], [153.0, -27.4999]]];
//! let fp = Footprint { id: "lot-1".into(), polygon: square, base: 10.0, height: 6.0, properties: Default::default() };
//! let built = build_tileset(&[fp], None, &TilesetOptions::default()).unwrap();
//! assert_eq!(built.tileset["asset"]["version"], "1.1");
//! assert_eq!(built.contents[0].0, "tiles/0/0/0.glb");
//! ```

mod frame;
mod glb;
mod mesh;
mod metadata;
pub mod service;
mod tileset;

pub use frame::{geodetic_to_ecef, EnuFrame, WGS84_A, WGS84_F};
pub use metadata::{CLASS, SCHEMA_ID};
pub use tileset::{build_tileset, TERRAIN_URI};

/// The `asset.generator` of every tileset and glTF the area writes, whichever path built it.
pub const GENERATOR: &str = concat!("Meridian ", env!("CARGO_PKG_VERSION"));

use serde_json::Value;

/// A building or parcel footprint to extrude.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Footprint {
    /// The feature's identifier (the `id` property).
    pub id: String,
    /// Rings of longitude, latitude (degrees, WGS84), exterior first, then holes. Either
    /// orientation; a closing point that repeats the first is allowed.
    pub polygon: Vec<Vec<[f64; 2]>>,
    /// Ground height (m above the WGS84 ellipsoid) of the floor.
    pub base: f64,
    /// Extrusion (m) above `base`; must be positive.
    pub height: f64,
    /// Attributes: `lot`, `plan`, `tenure` and `area` have fixed places in the schema; other
    /// keys become extra properties (see docs/twin.md).
    pub properties: serde_json::Map<String, Value>,
}

/// A regular grid of heights over a longitude/latitude box: each value is the height (m above
/// the ellipsoid) at the centre of its cell. Rows run north to south, columns west to east.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Terrain {
    /// Columns.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// `[west, south, east, north]` (degrees).
    pub bounds: [f64; 4],
    /// `width × height` heights, row by row from the north; NaN where there is no data.
    pub heights: Vec<f32>,
}

impl Terrain {
    /// Checks the grid's shape and bounds.
    pub fn validate(&self) -> Result<(), TwinError> {
        let [w, s, e, n] = self.bounds;
        if self.width < 2 || self.height < 2 {
            return Err(TwinError::Terrain(format!(
                "a grid needs at least 2×2 cells, not {}×{}",
                self.width, self.height
            )));
        }
        if self.width.checked_mul(self.height) != Some(self.heights.len()) {
            return Err(TwinError::Terrain(format!(
                "{} heights for a {}×{} grid",
                self.heights.len(),
                self.width,
                self.height
            )));
        }
        if !self.bounds.iter().all(|c| c.is_finite()) || w >= e || s >= n || s < -90.0 || n > 90.0 {
            return Err(TwinError::Terrain(format!("bounds {:?} are not [west, south, east, north]", self.bounds)));
        }
        Ok(())
    }
}

/// How a tileset is cut and what it may hold.
#[derive(Clone, Debug, PartialEq)]
pub struct TilesetOptions {
    /// No leaf tile holds more footprints than this (at most 2^24: feature IDs are f32).
    pub max_features_per_tile: usize,
    /// The deepest quadtree level (the root is 0); at most 24.
    pub max_depth: u8,
    /// More footprints than this is an error.
    pub max_footprints: usize,
    /// A footprint with more vertices (all rings) than this is an error.
    pub max_vertices_per_polygon: usize,
    /// More triangles in the whole tileset (buildings and terrain) than this is an error.
    pub max_triangles: usize,
    /// The terrain mesh has at most this many vertices along each side.
    pub terrain_max_side: usize,
}

impl Default for TilesetOptions {
    fn default() -> Self {
        Self {
            max_features_per_tile: 2_000,
            max_depth: 16,
            max_footprints: 1_000_000,
            max_vertices_per_polygon: 10_000,
            max_triangles: 50_000_000,
            terrain_max_side: 256,
        }
    }
}

/// A built tileset: `tileset.json` and its contents, ready to be written or served.
#[derive(Clone, Debug)]
pub struct BuiltTileset {
    /// The `tileset.json` document.
    pub tileset: Value,
    /// `(uri relative to tileset.json, GLB bytes)`, in the tileset's depth-first order.
    pub contents: Vec<(String, Vec<u8>)>,
    /// One entry per content tile, in the order of `contents`.
    pub tiles: Vec<TileSummary>,
    /// Footprints left out, with why.
    pub skipped: Vec<Skipped>,
    /// The local frame of the root `transform`.
    pub frame: EnuFrame,
    /// Triangles in all contents.
    pub triangles: usize,
}

/// A content tile.
#[derive(Clone, Debug, PartialEq)]
pub struct TileSummary {
    /// The content's uri.
    pub uri: String,
    /// Quadtree level (0 for the root); the terrain is reported at level 0.
    pub depth: u8,
    /// Indices into the input footprints of the tile's features, by feature ID.
    pub features: Vec<usize>,
    /// Triangles in the content.
    pub triangles: usize,
    /// The content's box in the ENU frame, `[min, max]` (m).
    pub bounds: [[f64; 3]; 2],
}

/// A footprint that was left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// Its index in the input.
    pub index: usize,
    /// Its `id`.
    pub id: String,
    /// Why.
    pub reason: SkipReason,
}

/// Why a footprint was left out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// No exterior ring, or fewer than three distinct points in it.
    TooFewPoints,
    /// A non-finite coordinate, or a latitude beyond ±90°.
    NonFinite,
    /// The exterior ring (less its holes) has no area.
    ZeroArea,
    /// The base or height is not finite, or the height is not positive.
    BadHeight,
}

/// Why a tileset could not be built.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum TwinError {
    /// The options are out of range.
    #[error("invalid options: {0}")]
    Options(String),
    /// Too many footprints.
    #[error("{count} footprints, more than the limit of {max}")]
    TooManyFootprints { count: usize, max: usize },
    /// A footprint with too many vertices.
    #[error("footprint `{id}` has {count} vertices, more than the limit of {max}")]
    TooManyVertices { id: String, count: usize, max: usize },
    /// The tileset would hold too many triangles.
    #[error("the tileset would hold up to {count} triangles, more than the limit of {max}")]
    TooManyTriangles { count: usize, max: usize },
    /// A content would be larger than a GLB can be (4 GiB); lower `max_features_per_tile`.
    #[error("the content {uri} would be larger than 4 GiB")]
    TileTooLarge { uri: String },
    /// The terrain grid is malformed or has no data.
    #[error("invalid terrain: {0}")]
    Terrain(String),
    /// Nothing to build: no valid footprint and no terrain.
    #[error("nothing to build: no valid footprint and no terrain")]
    Empty,
}

/// A `Result` with [`TwinError`].
pub type Result<T, E = TwinError> = std::result::Result<T, E>;
