//! Tile matrix sets: WebMercatorQuad (the GoogleMapsCompatible well-known scale set),
//! WorldCRS84Quad (OGC 17-083r2: two tiles at level 0), and the Swiss LV95 set as swisstopo
//! publishes it (EPSG:2056, top left 2420000 / 1350000, its 29 resolutions from 4000 m to 0.1 m).

use meridian_core::crs::Crs;

/// The standardized rendering pixel size (0.28 mm) that scale denominators assume.
pub const PIXEL_SIZE: f64 = 0.000_28;

const WEB_MERCATOR_EXTENT: f64 = 20_037_508.342_789_244;

/// Metres per degree at the equator of the WGS 84 ellipsoid's semi-major axis.
const METRES_PER_DEGREE: f64 = 2.0 * std::f64::consts::PI * 6_378_137.0 / 360.0;

/// swisstopo's resolutions (metres per pixel) of the LV95 tile matrix set.
const LV95_RESOLUTIONS: &[f64] = &[
    4000.0, 3750.0, 3500.0, 3250.0, 3000.0, 2750.0, 2500.0, 2250.0, 2000.0, 1750.0, 1500.0, 1250.0, 1000.0, 750.0,
    650.0, 500.0, 250.0, 100.0, 50.0, 20.0, 10.0, 5.0, 2.5, 2.0, 1.5, 1.0, 0.5, 0.25, 0.1,
];

/// One level.
#[derive(Clone, Debug, PartialEq)]
pub struct TileMatrix {
    pub id: String,
    /// Map units per pixel.
    pub resolution: f64,
    pub scale_denominator: f64,
    pub matrix_width: u32,
    pub matrix_height: u32,
}

/// A tile matrix set.
#[derive(Clone, Debug, PartialEq)]
pub struct TileMatrixSet {
    pub id: &'static str,
    pub title: &'static str,
    pub crs: Crs,
    /// The `ows:SupportedCRS` URN.
    pub crs_urn: &'static str,
    pub well_known_scale_set: Option<&'static str>,
    /// Top-left corner, easting/longitude first.
    pub top_left: (f64, f64),
    /// The area covered, easting/longitude first.
    pub extent: [f64; 4],
    pub tile_size: u32,
    pub matrices: Vec<TileMatrix>,
}

impl TileMatrixSet {
    /// WebMercatorQuad, levels 0 to `max_zoom`.
    pub fn web_mercator_quad(max_zoom: u8) -> Self {
        let res0 = 2.0 * WEB_MERCATOR_EXTENT / 256.0;
        Self {
            id: "WebMercatorQuad",
            title: "Google Maps compatible for the World (EPSG:3857)",
            crs: Crs::Epsg(3857),
            crs_urn: "urn:ogc:def:crs:EPSG::3857",
            well_known_scale_set: Some("urn:ogc:def:wkss:OGC:1.0:GoogleMapsCompatible"),
            top_left: (-WEB_MERCATOR_EXTENT, WEB_MERCATOR_EXTENT),
            extent: [-WEB_MERCATOR_EXTENT, -WEB_MERCATOR_EXTENT, WEB_MERCATOR_EXTENT, WEB_MERCATOR_EXTENT],
            tile_size: 256,
            matrices: (0..=max_zoom.min(24))
                .map(|z| {
                    let resolution = res0 / f64::from(1u32 << z);
                    TileMatrix {
                        id: z.to_string(),
                        resolution,
                        scale_denominator: resolution / PIXEL_SIZE,
                        matrix_width: 1 << z,
                        matrix_height: 1 << z,
                    }
                })
                .collect(),
        }
    }

    /// WorldCRS84Quad, levels 0 to `max_zoom` − 1 (level z has 2^(z+1) × 2^z tiles).
    pub fn world_crs84_quad(max_zoom: u8) -> Self {
        let res0 = 180.0 / 256.0;
        Self {
            id: "WorldCRS84Quad",
            title: "CRS84 for the World",
            crs: Crs::Crs84,
            crs_urn: "urn:ogc:def:crs:OGC:1.3:CRS84",
            well_known_scale_set: None,
            top_left: (-180.0, 90.0),
            extent: [-180.0, -90.0, 180.0, 90.0],
            tile_size: 256,
            matrices: (0..max_zoom.clamp(1, 24))
                .map(|z| {
                    let resolution = res0 / f64::from(1u32 << z);
                    TileMatrix {
                        id: z.to_string(),
                        resolution,
                        scale_denominator: resolution * METRES_PER_DEGREE / PIXEL_SIZE,
                        matrix_width: 2 << z,
                        matrix_height: 1 << z,
                    }
                })
                .collect(),
        }
    }

    /// swisstopo's LV95 set (EPSG:2056).
    pub fn swiss_lv95() -> Self {
        let extent = [2_420_000.0, 1_030_000.0, 2_900_000.0, 1_350_000.0];
        Self {
            id: "2056",
            title: "CH1903+ / LV95 (swisstopo)",
            crs: Crs::Epsg(2056),
            crs_urn: "urn:ogc:def:crs:EPSG::2056",
            well_known_scale_set: None,
            top_left: (extent[0], extent[3]),
            extent,
            tile_size: 256,
            matrices: LV95_RESOLUTIONS
                .iter()
                .enumerate()
                .map(|(z, &resolution)| {
                    let span = 256.0 * resolution;
                    TileMatrix {
                        id: z.to_string(),
                        resolution,
                        scale_denominator: resolution / PIXEL_SIZE,
                        matrix_width: ((extent[2] - extent[0]) / span).ceil() as u32,
                        matrix_height: ((extent[3] - extent[1]) / span).ceil() as u32,
                    }
                })
                .collect(),
        }
    }

    /// Every set offered.
    pub fn all(max_zoom: u8) -> Vec<Self> {
        vec![Self::web_mercator_quad(max_zoom), Self::world_crs84_quad(max_zoom), Self::swiss_lv95()]
    }

    /// The matrix `id`.
    pub fn matrix(&self, id: &str) -> Option<&TileMatrix> {
        // Clients also send `EPSG:3857:5`-style identifiers (GeoServer's); take the last part.
        let id = id.rsplit(':').next().unwrap_or(id);
        self.matrices.iter().find(|m| m.id == id)
    }

    /// The box of tile (`row`, `col`) of `m`, easting first.
    pub fn tile_bbox(&self, m: &TileMatrix, row: u32, col: u32) -> [f64; 4] {
        let span = f64::from(self.tile_size) * m.resolution;
        let x0 = self.top_left.0 + f64::from(col) * span;
        let y1 = self.top_left.1 - f64::from(row) * span;
        [x0, y1 - span, x0 + span, y1]
    }
}
