//! WebMercatorQuad tiles (z/x/y, 256 or 512 px RGBA PNG) rendered from a DEM: the tile's
//! pixels (plus a one-pixel buffer for the 3×3 styles, so neighbouring tiles meet without a
//! seam) are warped from the source on the fly, then shaded, coloured or encoded. Pixels
//! without data are transparent.

use crate::crs::{transform_all, transformer, Transformer};
use crate::dem::{
    self, ColorMode, ColorReliefOptions, ColorStop, HillshadeOptions, Operation, SlopeOptions, StopValue,
};
use crate::tiff::GeoTiff;
use crate::warp::{self, Grid, Resampling};
use crate::{Error, Raster, Result};
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// Half the side of the WebMercatorQuad square, in metres of EPSG:3857.
pub const WEB_MERCATOR_EXTENT: f64 = 20_037_508.342_789_244;

/// What a tile shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "style", rename_all = "kebab-case")]
pub enum TileStyle {
    Hillshade(HillshadeOptions),
    /// Slope in degrees on a white → yellow → red → purple ramp.
    Slope,
    ColorRelief(ColorReliefOptions),
    /// Mapbox Terrain-RGB: height = −10000 + (R × 65536 + G × 256 + B) × 0.1.
    TerrainRgb,
    /// Terrarium: height = R × 256 + G + B / 256 − 32768.
    Terrarium,
}

impl TileStyle {
    /// The style names accepted in requests.
    pub const NAMES: &'static [&'static str] = &["hillshade", "slope", "color-relief", "terrain-rgb", "terrarium"];

    /// A style by name with default options.
    pub fn by_name(name: &str) -> Option<Self> {
        Some(match name {
            "hillshade" => Self::Hillshade(HillshadeOptions::default()),
            "slope" => Self::Slope,
            "color-relief" => Self::ColorRelief(ColorReliefOptions {
                ramp: Some(dem::ColorRamp::Terrain),
                ..ColorReliefOptions::default()
            }),
            "terrain-rgb" => Self::TerrainRgb,
            "terrarium" => Self::Terrarium,
            _ => return None,
        })
    }

    fn needs_buffer(&self) -> bool {
        matches!(self, Self::Hillshade(_) | Self::Slope)
    }
}

/// How a processed raster (an output layer, not a DEM) is painted in tiles.
#[derive(Clone, Debug, PartialEq)]
pub enum LayerPaint {
    /// Band 1 as grey levels (hillshade): values rounded and clamped to 0–255.
    Gray,
    /// Band 1 coloured by a ramp or stops; percentages refer to `min`..`max` (the layer's
    /// statistics).
    Ramp { colors: ColorReliefOptions, min: f64, max: f64 },
    /// Bands 1–3 as red, green and blue, band 4 (when there is one) as alpha (color relief).
    Rgb,
}

/// The colours of the `slope` style (degrees: white → yellow → red → purple), for painting a
/// slope layer the same way.
pub fn slope_colors() -> ColorReliefOptions {
    slope_ramp()
}

/// The EPSG:3857 bounds (min x, min y, max x, max y) of tile z/x/y.
pub fn tile_bounds(z: u8, x: u32, y: u32) -> [f64; 4] {
    let size = 2.0 * WEB_MERCATOR_EXTENT / (1u64 << z) as f64;
    let minx = -WEB_MERCATOR_EXTENT + x as f64 * size;
    let maxy = WEB_MERCATOR_EXTENT - y as f64 * size;
    [minx, maxy - size, minx + size, maxy]
}

/// Renders tiles of one DEM.
pub struct TileRenderer<'a> {
    src: &'a GeoTiff,
    to_src: Transformer,
    range: OnceLock<(f64, f64)>,
    pub resampling: Resampling,
}

impl<'a> TileRenderer<'a> {
    /// A renderer for `src`, which must carry an EPSG code.
    pub fn new(src: &'a GeoTiff) -> Result<Self> {
        let epsg = src.epsg().ok_or_else(|| Error::arg("the DEM has no EPSG code"))?;
        Ok(Self { src, to_src: transformer(3857, epsg)?, range: OnceLock::new(), resampling: Resampling::Bilinear })
    }

    /// The DEM's bounds in longitude and latitude (min lon, min lat, max lon, max lat).
    pub fn bounds_wgs84(&self) -> Result<[f64; 4]> {
        let t = transformer(self.to_src.target_epsg(), 4326)?;
        let gt = self.src.geo_transform();
        let (w, h) = (self.src.width() as f64, self.src.height() as f64);
        let mut pts = Vec::new();
        for i in 0..=8 {
            let f = i as f64 / 8.0;
            pts.extend([gt.apply(f * w, 0.0), gt.apply(f * w, h), gt.apply(0.0, f * h), gt.apply(w, f * h)]);
        }
        transform_all(&t, &mut pts)?;
        let mut b = [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];
        for (x, y) in pts.into_iter().filter(|p| p.0.is_finite()) {
            b = [b[0].min(x), b[1].min(y), b[2].max(x), b[3].max(y)];
        }
        Ok(b)
    }

    /// Zoom levels worth serving: from where the DEM spans a few pixels to one zoom past its
    /// native resolution.
    pub fn zoom_range(&self, tile_size: usize) -> Result<(u8, u8)> {
        let b = self.bounds_wgs84()?;
        let lat = ((b[1] + b[3]) / 2.0).to_radians();
        let gt = self.src.geo_transform();
        let res = gt.0[1].abs();
        let ground = if self.to_src.target_is_geographic() { res * 111_320.0 * lat.cos() } else { res };
        let z_native = (2.0 * WEB_MERCATOR_EXTENT * lat.cos() / (tile_size as f64 * ground)).log2();
        let max = (z_native.ceil() + 1.0).clamp(0.0, 24.0) as u8;
        let span_m = (b[2] - b[0]).to_radians() * 6_378_137.0;
        let z_min = (2.0 * WEB_MERCATOR_EXTENT * 4.0 / (tile_size as f64 * span_m.max(1.0))).log2();
        Ok((z_min.floor().clamp(0.0, max as f64) as u8, max))
    }

    fn range(&self) -> Result<(f64, f64)> {
        if let Some(r) = self.range.get() {
            return Ok(*r);
        }
        let level = self.src.images().len() - 1;
        let im = &self.src.images()[level];
        let nd = self.src.nodata();
        let data = self.src.read_window::<f32>(level, 0, crate::Window::new(0, 0, im.width, im.height), f32::NAN)?;
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for v in data {
            let v = v as f64;
            if v.is_nan() || nd == Some(v) {
                continue;
            }
            lo = lo.min(v);
            hi = hi.max(v);
        }
        Ok(*self.range.get_or_init(|| (lo, hi)))
    }

    /// The warped DEM of tile z/x/y with `buffer` extra pixels on each side (NaN = no data);
    /// `None` when the tile misses the DEM.
    pub fn elevation(&self, z: u8, x: u32, y: u32, size: usize, buffer: usize) -> Result<Option<Raster<f32>>> {
        let (grid, pos) = self.tile_positions(z, x, y, size, buffer)?;
        warp::warp_positions(self.src, &grid, &pos, self.resampling, None)
    }

    /// The image level tile z/x/y in `style` is read from (0 = full resolution, then the
    /// overviews, largest first): the coarsest whose pixels are at most 1.2 times the tile's
    /// pixels measured on the source. `None` when the tile misses the DEM.
    pub fn source_level(&self, z: u8, x: u32, y: u32, size: usize, style: &TileStyle) -> Result<Option<usize>> {
        let buffer = if style.needs_buffer() { 1 } else { 0 };
        let (grid, pos) = self.tile_positions(z, x, y, size, buffer)?;
        Ok(warp::read_plan(self.src, &grid, &pos).map(|(level, _)| level))
    }

    /// Source positions of the pixel centres of tile z/x/y (plus `buffer` pixels each side).
    fn tile_positions(&self, z: u8, x: u32, y: u32, size: usize, buffer: usize) -> Result<(Grid, Vec<(f64, f64)>)> {
        if z > 30 || (x as u64) >= (1u64 << z) || (y as u64) >= (1u64 << z) {
            return Err(Error::arg("tile outside the tile matrix"));
        }
        let b = tile_bounds(z, x, y);
        let res = (b[2] - b[0]) / size as f64;
        let pad = buffer as f64 * res;
        let n = size + 2 * buffer;
        let grid = Grid::from_bbox([b[0] - pad, b[1] - pad, b[2] + pad, b[3] + pad], n, n, 3857);
        let pos = warp::source_positions(&grid, &self.src.geo_transform(), &self.to_src, 16)?;
        Ok((grid, pos))
    }

    /// Renders tile z/x/y of a processed raster (an output layer) as RGBA pixels, resampled
    /// from the layer itself (its overviews at low zooms); `None` when the tile holds no data.
    /// Pixels without data are transparent.
    pub fn render_layer_rgba(&self, z: u8, x: u32, y: u32, size: usize, paint: &LayerPaint) -> Result<Option<Vec<u8>>> {
        if size != 256 && size != 512 {
            return Err(Error::arg("tile size must be 256 or 512"));
        }
        let (grid, pos) = self.tile_positions(z, x, y, size, 0)?;
        self.paint_layer(&grid, &pos, paint)
    }

    /// Renders a processed raster over any grid (a WMS map, a tile of another tile matrix set)
    /// as RGBA pixels, row by row from the top; `None` when the grid holds no data.
    pub fn render_layer_grid_rgba(&self, grid: &Grid, paint: &LayerPaint) -> Result<Option<Vec<u8>>> {
        let to_src = transformer(grid.epsg, self.to_src.target_epsg())?;
        let pos = warp::source_positions(grid, &self.src.geo_transform(), &to_src, 16)?;
        self.paint_layer(grid, &pos, paint)
    }

    fn paint_layer(&self, grid: &Grid, pos: &[(f64, f64)], paint: &LayerPaint) -> Result<Option<Vec<u8>>> {
        let band = |b: usize, r: Resampling| -> Result<Option<Vec<f32>>> {
            Ok(warp::warp_band_positions(self.src, b, grid, pos, r, None)?.map(|w| w.data))
        };
        let mut rgba = vec![0u8; grid.width * grid.height * 4];
        let mut any = false;
        match paint {
            LayerPaint::Gray => {
                let Some(v) = band(0, self.resampling)? else { return Ok(None) };
                for (px, &v) in rgba.chunks_exact_mut(4).zip(&v) {
                    if v.is_nan() {
                        continue;
                    }
                    let g = (v + 0.5).clamp(0.0, 255.0) as u8;
                    px.copy_from_slice(&[g, g, g, 255]);
                    any = true;
                }
            }
            LayerPaint::Ramp { colors, min, max } => {
                colors.validate()?;
                let table = colors.table(*min, *max);
                let Some(v) = band(0, self.resampling)? else { return Ok(None) };
                for (px, &v) in rgba.chunks_exact_mut(4).zip(&v) {
                    if v.is_nan() {
                        continue;
                    }
                    px.copy_from_slice(&table.color(v as f64));
                    any = true;
                }
            }
            LayerPaint::Rgb => {
                let bands = self.src.bands();
                if bands < 3 {
                    return Err(Error::arg("an RGB layer needs three or four bands"));
                }
                // Colours are not interpolated, so that exact-entry reliefs keep their classes.
                let mut planes = Vec::with_capacity(4);
                for b in 0..bands.min(4) {
                    let Some(v) = band(b, Resampling::Nearest)? else { return Ok(None) };
                    planes.push(v);
                }
                for (i, px) in rgba.chunks_exact_mut(4).enumerate() {
                    if planes[0][i].is_nan() {
                        continue;
                    }
                    for k in 0..3 {
                        px[k] = planes[k][i].clamp(0.0, 255.0) as u8;
                    }
                    px[3] = planes.get(3).map_or(255, |a| a[i].clamp(0.0, 255.0) as u8);
                    any |= px[3] > 0;
                }
            }
        }
        Ok(any.then_some(rgba))
    }

    /// Renders tile z/x/y of a processed raster as a PNG; `None` when the tile holds no data.
    pub fn render_layer_png(&self, z: u8, x: u32, y: u32, size: usize, paint: &LayerPaint) -> Result<Option<Vec<u8>>> {
        match self.render_layer_rgba(z, x, y, size, paint)? {
            Some(rgba) => Ok(Some(encode_png(&rgba, size as u32, size as u32)?)),
            None => Ok(None),
        }
    }

    /// Renders tile z/x/y as RGBA pixels; `None` when the tile holds no data.
    pub fn render_rgba(&self, z: u8, x: u32, y: u32, size: usize, style: &TileStyle) -> Result<Option<Vec<u8>>> {
        if size != 256 && size != 512 {
            return Err(Error::arg("tile size must be 256 or 512"));
        }
        let buffer = if style.needs_buffer() { 1 } else { 0 };
        let Some(dem) = self.elevation(z, x, y, size, buffer)? else { return Ok(None) };
        // Web Mercator metres are cos(lat) ground metres.
        self.shade(&dem, size, size, buffer, self.tile_lat(z, y).cos(), style)
    }

    /// Renders `style` over any grid (a WMS map, a tile of another tile matrix set) as RGBA
    /// pixels, row by row from the top; `None` when the grid holds no data. `scale` is the
    /// ground metres of one unit of the grid's CRS (1 for metres, about 111 120 for degrees, the
    /// cosine of the latitude for Web Mercator), as gdaldem's `-s` takes it.
    pub fn render_grid_rgba(&self, grid: &Grid, scale: f64, style: &TileStyle) -> Result<Option<Vec<u8>>> {
        let buffer = if style.needs_buffer() { 1 } else { 0 };
        let gt = grid.geo_transform.0;
        let padded = Grid {
            width: grid.width + 2 * buffer,
            height: grid.height + 2 * buffer,
            geo_transform: crate::GeoTransform([
                gt[0] - buffer as f64 * gt[1],
                gt[1],
                gt[2],
                gt[3] - buffer as f64 * gt[5],
                gt[4],
                gt[5],
            ]),
            epsg: grid.epsg,
        };
        let to_src = transformer(grid.epsg, self.to_src.target_epsg())?;
        let pos = warp::source_positions(&padded, &self.src.geo_transform(), &to_src, 16)?;
        let Some(dem) = warp::warp_positions(self.src, &padded, &pos, self.resampling, None)? else { return Ok(None) };
        self.shade(&dem, grid.width, grid.height, buffer, scale, style)
    }

    /// Shades, colours or encodes a warped DEM of `width` × `height` pixels plus `buffer` pixels
    /// on each side.
    fn shade(
        &self,
        dem: &Raster<f32>,
        width: usize,
        height: usize,
        buffer: usize,
        scale: f64,
        style: &TileStyle,
    ) -> Result<Option<Vec<u8>>> {
        if dem.data.iter().all(|v| v.is_nan()) {
            return Ok(None);
        }
        let n = width + 2 * buffer;
        let mut rgba = vec![0u8; width * height * 4];
        let inner = |r: usize, c: usize| (r + buffer) * n + c + buffer;
        match style {
            TileStyle::TerrainRgb | TileStyle::Terrarium => {
                for r in 0..height {
                    for c in 0..width {
                        let h = dem.data[inner(r, c)];
                        if h.is_nan() {
                            continue;
                        }
                        let px = &mut rgba[(r * width + c) * 4..(r * width + c) * 4 + 4];
                        px.copy_from_slice(&if matches!(style, TileStyle::TerrainRgb) {
                            terrain_rgb(h as f64)
                        } else {
                            terrarium(h as f64)
                        });
                    }
                }
            }
            TileStyle::Hillshade(o) => {
                let mut o = o.clone();
                o.scale = scale;
                o.compute_edges = true;
                let (out, _) = dem::run_to_raster(&Operation::Hillshade(o), dem)?;
                let dem::Output::Byte(shade) = out else { return Err(Error::arg("unexpected output")) };
                for r in 0..height {
                    for c in 0..width {
                        let v = shade.data[inner(r, c)];
                        if v == 0 || dem.data[inner(r, c)].is_nan() {
                            continue;
                        }
                        rgba[(r * width + c) * 4..(r * width + c) * 4 + 4].copy_from_slice(&[v, v, v, 255]);
                    }
                }
            }
            TileStyle::Slope => {
                let o = SlopeOptions { scale, compute_edges: true, ..SlopeOptions::default() };
                let (out, _) = dem::run_to_raster(&Operation::Slope(o), dem)?;
                let dem::Output::Float32(slope) = out else { return Err(Error::arg("unexpected output")) };
                let table = slope_ramp().table(0.0, 90.0);
                for r in 0..height {
                    for c in 0..width {
                        let v = slope.data[inner(r, c)];
                        if v == dem::FLOAT_NODATA || dem.data[inner(r, c)].is_nan() {
                            continue;
                        }
                        rgba[(r * width + c) * 4..(r * width + c) * 4 + 4].copy_from_slice(&table.color(v as f64));
                    }
                }
            }
            TileStyle::ColorRelief(o) => {
                o.validate()?;
                let (lo, hi) = self.range()?;
                let table = o.table(lo, hi);
                for r in 0..height {
                    for c in 0..width {
                        let h = dem.data[inner(r, c)];
                        if h.is_nan() {
                            continue;
                        }
                        rgba[(r * width + c) * 4..(r * width + c) * 4 + 4].copy_from_slice(&table.color(h as f64));
                    }
                }
            }
        }
        Ok(Some(rgba))
    }

    fn tile_lat(&self, z: u8, y: u32) -> f64 {
        let b = tile_bounds(z, 0, y);
        let my = (b[1] + b[3]) / 2.0;
        (2.0 * (my / 6_378_137.0).exp().atan() - std::f64::consts::FRAC_PI_2).abs()
    }

    /// Renders tile z/x/y as a PNG; `None` when the tile holds no data.
    pub fn render_png(&self, z: u8, x: u32, y: u32, size: usize, style: &TileStyle) -> Result<Option<Vec<u8>>> {
        match self.render_rgba(z, x, y, size, style)? {
            Some(rgba) => Ok(Some(encode_png(&rgba, size as u32, size as u32)?)),
            None => Ok(None),
        }
    }
}

fn slope_ramp() -> ColorReliefOptions {
    let stop = |v: f64, c: [u8; 3]| ColorStop { value: StopValue::Number(v), color: c.to_vec() };
    ColorReliefOptions {
        stops: Some(vec![
            stop(0.0, [255, 255, 255]),
            stop(15.0, [255, 237, 160]),
            stop(30.0, [254, 178, 76]),
            stop(45.0, [240, 59, 32]),
            stop(60.0, [128, 0, 38]),
            stop(90.0, [60, 0, 60]),
        ]),
        mode: ColorMode::Interpolate,
        alpha: true,
        ..ColorReliefOptions::default()
    }
}

/// Mapbox Terrain-RGB encoding of a height in metres (0.1 m steps).
pub fn terrain_rgb(h: f64) -> [u8; 4] {
    let v = ((h + 10_000.0) * 10.0).round().clamp(0.0, 16_777_215.0) as u32;
    [(v >> 16) as u8, (v >> 8) as u8, v as u8, 255]
}

/// Terrarium encoding of a height in metres (1/256 m steps).
pub fn terrarium(h: f64) -> [u8; 4] {
    let v = (h + 32_768.0).clamp(0.0, 65_535.996);
    let i = v.floor();
    [(i / 256.0).floor() as u8, (i as u32 % 256) as u8, ((v - i) * 256.0).floor() as u8, 255]
}

/// Encodes RGBA pixels as a PNG.
pub fn encode_png(rgba: &[u8], width: u32, height: u32) -> Result<Vec<u8>> {
    let mut buf = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut buf, width, height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Fast);
        let mut w = enc.write_header().map_err(|e| Error::Io(std::io::Error::other(e)))?;
        w.write_image_data(rgba).map_err(|e| Error::Io(std::io::Error::other(e)))?;
    }
    Ok(buf)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn elevation_encodings_round_trip() {
        for h in [-420.5, 0.0, 1754.3, 8848.9] {
            let [r, g, b, _] = terrain_rgb(h);
            let back = -10_000.0 + (r as f64 * 65_536.0 + g as f64 * 256.0 + b as f64) * 0.1;
            assert!((back - h).abs() <= 0.05 + 1e-9, "{h} {back}");
            let [r, g, b, _] = terrarium(h);
            let back = r as f64 * 256.0 + g as f64 + b as f64 / 256.0 - 32_768.0;
            assert!((back - h).abs() < 1.0 / 256.0 + 1e-9, "{h} {back}");
        }
    }

    #[test]
    fn tile_bounds_cover_the_square() {
        let b = tile_bounds(0, 0, 0);
        assert_eq!(b, [-WEB_MERCATOR_EXTENT, -WEB_MERCATOR_EXTENT, WEB_MERCATOR_EXTENT, WEB_MERCATOR_EXTENT]);
        let b = tile_bounds(1, 1, 0);
        assert_eq!(b, [0.0, 0.0, WEB_MERCATOR_EXTENT, WEB_MERCATOR_EXTENT]);
    }
}
