//! Index tiles (WebMercatorQuad z/x/y, 256 or 512 px PNG): computed on the fly from a scene's
//! bands (as TiTiler's expression endpoint does: every band warped onto the tile from the
//! overview that fits, the expression evaluated, coloured by a ramp over `rescale`), or drawn
//! from a computation's Float32 COG with the DEM's tile renderer. Pixels without data are
//! transparent.

use crate::compute::colormap;
use crate::expr::Expression;
use crate::service::{keys, Error, Result};
use crate::EoService;
use meridian_core::id::AccountId;
use meridian_core::DomainError;
use meridian_raster::crs::transformer;
use meridian_raster::dem::{ColorMode, ColorRamp, ColorReliefOptions};
use meridian_raster::tile::{encode_png, tile_bounds, LayerPaint, TileRenderer};
use meridian_raster::warp::{source_positions, warp_positions, Grid, Resampling};
use serde_json::Value;
use std::collections::BTreeMap;

/// What a tile shows and how it is painted.
#[derive(Clone, Debug)]
pub struct TileStyle {
    /// A named index (`ndvi`) or an expression over asset keys and band names.
    pub expression: String,
    pub bands: BTreeMap<String, String>,
    pub colormap: ColorRamp,
    pub rescale: (f64, f64),
}

/// Parses the query of a tile request: `index` or `expression`, `bands` (`red:B7,nir:B8`),
/// `colormap`, `rescale` (`-1,1`). Errors name the parameter.
pub fn parse_style(pairs: &[(String, String)]) -> std::result::Result<TileStyle, (String, String)> {
    let mut expression = None;
    let mut bands = BTreeMap::new();
    let mut cmap = None;
    let mut rescale = (-1.0, 1.0);
    let mut index = None;
    for (k, v) in pairs {
        match k.as_str() {
            "index" => index = Some(v.to_ascii_lowercase()),
            "expression" => expression = Some(v.clone()),
            "bands" => {
                for pair in v.split(',').filter(|p| !p.is_empty()) {
                    let (name, asset) = pair.split_once(':').ok_or(("bands".to_owned(), "bands is name:asset,name:asset".to_owned()))?;
                    bands.insert(name.trim().to_owned(), asset.trim().to_owned());
                }
            }
            "colormap" | "colormap_name" => {
                cmap = Some(colormap(v).ok_or(("colormap".to_owned(), format!("unknown colormap {v}; one of {}", ColorRamp::NAMES.join(", "))))?)
            }
            "rescale" => {
                let n: Vec<f64> = v.split(',').filter_map(|x| x.trim().parse().ok()).collect();
                match n.as_slice() {
                    [lo, hi] if lo < hi && lo.is_finite() && hi.is_finite() => rescale = (*lo, *hi),
                    _ => return Err(("rescale".into(), "rescale is min,max with min < max".into())),
                }
            }
            "access_token" => {}
            other => return Err((other.to_owned(), format!("unknown parameter {other}"))),
        }
    }
    let expression = match (index, expression) {
        (Some(_), Some(_)) => return Err(("expression".into(), "give index or expression, not both".into())),
        (Some(i), None) => crate::expr::named_index(&i)
            .ok_or(("index".to_owned(), format!("unknown index {i}; known: {}", crate::expr::NAMED.join(", "))))?
            .to_owned(),
        (None, Some(e)) => e,
        (None, None) => crate::expr::named_index("ndvi").unwrap_or_default().to_owned(),
    };
    Expression::parse(&expression).map_err(|e| ("expression".to_owned(), e.to_string()))?;
    let colormap = cmap.unwrap_or(ColorRamp::RdYlGn);
    Ok(TileStyle { expression, bands, colormap, rescale })
}

/// A 256-entry colour table of a ramp over [0, 1].
fn lut(ramp: ColorRamp) -> Vec<[u8; 4]> {
    let opts = ColorReliefOptions { ramp: Some(ramp), stops: None, mode: ColorMode::default(), alpha: true };
    let samples = opts.samples(0.0, 1.0, 256);
    let mut out = vec![[0u8; 4]; 256];
    for (i, c) in out.iter_mut().enumerate() {
        *c = samples.get(i).map(|s| s.1).unwrap_or([0, 0, 0, 0]);
    }
    out
}

fn painted(values: &[f32], table: &[[u8; 4]], rescale: (f64, f64)) -> Vec<u8> {
    let (lo, span) = (rescale.0 as f32, (rescale.1 - rescale.0) as f32);
    let mut rgba = vec![0u8; values.len() * 4];
    for (px, &v) in rgba.chunks_exact_mut(4).zip(values) {
        if v.is_finite() {
            let t = ((v - lo) / span).clamp(0.0, 1.0);
            let c = table[(t * 255.0).round() as usize];
            px.copy_from_slice(&[c[0], c[1], c[2], 255]);
        }
    }
    rgba
}

impl EoService {
    /// A tile of an index computed from a scene's bands; `None` outside the scene.
    #[allow(clippy::too_many_arguments)]
    pub async fn scene_tile(
        &self,
        account: &AccountId,
        scene: &str,
        style: &TileStyle,
        z: u8,
        x: u32,
        y: u32,
        size: usize,
    ) -> Result<Option<Vec<u8>>> {
        check_tile(z, x, y)?;
        let item = self.scene(account, scene).await?;
        let expr = Expression::parse(&style.expression).map_err(|e| DomainError::invalid("/expression", "invalid_expression", e.to_string()))?;
        let (expr, _) = crate::compute::resolve_bands_for(&item, &expr, &style.bands)?;
        let mut opened = Vec::new();
        for v in expr.variables() {
            let href = item.body.pointer(&format!("/assets/{v}/href")).and_then(Value::as_str).unwrap_or("");
            if href != crate::service::asset_href(&item.collection, &item.id, v) {
                return Err(DomainError::invalid("/bands", "remote_asset", format!("asset {v} is not stored by Meridian")).into());
            }
            opened.push(self.open_asset(&keys::asset(account, &item.collection, &item.id, v)).await?);
        }
        let table = lut(style.colormap);
        let rescale = style.rescale;
        tokio::task::spawn_blocking(move || -> Result<Option<Vec<u8>>> {
            let Some(first) = opened.first() else { return Ok(None) };
            let epsg = first.epsg().ok_or_else(|| DomainError::invalid("/scene", "no_crs", "the scene names no EPSG code"))?;
            let grid = Grid::from_bbox(tile_bounds(z, x, y), size, size, 3857);
            let t = transformer(3857, epsg)?;
            let pos = source_positions(&grid, &first.geo_transform(), &t, 8)?;
            let mut bands = Vec::with_capacity(opened.len());
            for tiff in &opened {
                match warp_positions(tiff, &grid, &pos, Resampling::Nearest, None)? {
                    Some(r) => bands.push(r.data),
                    None => return Ok(None),
                }
            }
            let inputs: Vec<&[f32]> = bands.iter().map(Vec::as_slice).collect();
            let mut out = vec![f32::NAN; size * size];
            expr.eval_slices(&inputs, &mut out);
            Ok(Some(encode_png(&painted(&out, &table, rescale), size as u32, size as u32)?))
        })
        .await
        .map_err(|e| Error::Internal(e.to_string()))?
    }

    /// A tile of a computation's index; `None` outside it.
    #[allow(clippy::too_many_arguments)]
    pub async fn result_tile(
        &self,
        account: &AccountId,
        id: &str,
        ramp: ColorRamp,
        rescale: (f64, f64),
        z: u8,
        x: u32,
        y: u32,
        size: usize,
    ) -> Result<Option<Vec<u8>>> {
        check_tile(z, x, y)?;
        self.result(account, id).await?;
        let tiff = self.open_asset(&format!("{}/index.tif", keys::result(account, id))).await?;
        let paint = LayerPaint::Ramp {
            colors: ColorReliefOptions { ramp: Some(ramp), stops: None, mode: ColorMode::default(), alpha: true },
            min: rescale.0,
            max: rescale.1,
        };
        tokio::task::spawn_blocking(move || -> Result<Option<Vec<u8>>> {
            let r = TileRenderer::new(&tiff)?;
            Ok(r.render_layer_png(z, x, y, size, &paint)?)
        })
        .await
        .map_err(|e| Error::Internal(e.to_string()))?
    }
}

fn check_tile(z: u8, x: u32, y: u32) -> Result<()> {
    if z > 24 || u64::from(x) >= 1u64 << z || u64::from(y) >= 1u64 << z {
        return Err(DomainError::not_found("tile", format!("{z}/{x}/{y}")).into());
    }
    Ok(())
}
