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
use meridian_store::eo::EoItem;
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

/// Parses how a tile is painted: `colormap` (RdYlGn by default) and `rescale` (`-1,1` by
/// default); `access_token` is the credential's, any other parameter an error. Errors name the
/// parameter.
pub fn parse_paint(pairs: &[(String, String)]) -> std::result::Result<(ColorRamp, (f64, f64)), (String, String)> {
    let mut ramp = ColorRamp::RdYlGn;
    let mut rescale = (-1.0, 1.0);
    for (k, v) in pairs {
        match k.as_str() {
            "colormap" | "colormap_name" => {
                ramp = colormap(v).ok_or((
                    "colormap".to_owned(),
                    format!("unknown colormap {v}; one of {}", ColorRamp::NAMES.join(", ")),
                ))?
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
    Ok((ramp, rescale))
}

/// Parses the query of a tile request: `index` or `expression`, `bands` (`red:B7,nir:B8`),
/// and what [`parse_paint`] reads. Errors name the parameter.
pub fn parse_style(pairs: &[(String, String)]) -> std::result::Result<TileStyle, (String, String)> {
    let mut expression = None;
    let mut bands = BTreeMap::new();
    let mut index = None;
    let mut paint = Vec::new();
    for (k, v) in pairs {
        match k.as_str() {
            "index" => index = Some(v.to_ascii_lowercase()),
            "expression" => expression = Some(v.clone()),
            "bands" => {
                for pair in v.split(',').filter(|p| !p.is_empty()) {
                    let (name, asset) = pair
                        .split_once(':')
                        .ok_or(("bands".to_owned(), "bands is name:asset,name:asset".to_owned()))?;
                    bands.insert(name.trim().to_owned(), asset.trim().to_owned());
                }
            }
            _ => paint.push((k.clone(), v.clone())),
        }
    }
    let (colormap, rescale) = parse_paint(&paint)?;
    let expression = match (index, expression) {
        (Some(_), Some(_)) => return Err(("expression".into(), "give index or expression, not both".into())),
        (Some(i), None) => crate::expr::named_index(&i)
            .ok_or(("index".to_owned(), format!("unknown index {i}; known: {}", crate::expr::NAMED.join(", "))))?
            .to_owned(),
        (None, Some(e)) => e,
        (None, None) => crate::expr::named_index("ndvi").unwrap_or_default().to_owned(),
    };
    Expression::parse(&expression).map_err(|e| ("expression".to_owned(), e.to_string()))?;
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

/// Index values coloured by the style's ramp over its `rescale`; NaN is transparent.
pub fn paint(values: &[f32], style: &TileStyle) -> Vec<u8> {
    painted(values, &lut(style.colormap), style.rescale)
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
        let grid = Grid::from_bbox(tile_bounds(z, x, y), size, size, 3857);
        let Some(values) = self.index_grid(account, &item, style, grid).await? else { return Ok(None) };
        let rgba = paint(&values, style);
        Ok(Some(encode_png(&rgba, size as u32, size as u32)?))
    }

    /// The index of `style` over `grid` (any CRS), computed from the item's stored bands: NaN
    /// where there is no data; `None` when the grid misses the scene.
    pub async fn index_grid(
        &self,
        account: &AccountId,
        item: &EoItem,
        style: &TileStyle,
        grid: Grid,
    ) -> Result<Option<Vec<f32>>> {
        let expr = Expression::parse(&style.expression)
            .map_err(|e| DomainError::invalid("/expression", "invalid_expression", e.to_string()))?;
        let (expr, _) = crate::compute::resolve_bands_for(item, &expr, &style.bands)?;
        let mut opened = Vec::new();
        for v in expr.variables() {
            let source = self.asset_source(account, item, v).await?;
            opened.push(self.open_tile_asset(&source).await?);
        }
        tokio::task::spawn_blocking(move || -> Result<Option<Vec<f32>>> {
            let Some(first) = opened.first() else { return Ok(None) };
            let epsg =
                first.epsg().ok_or_else(|| DomainError::invalid("/scene", "no_crs", "the scene names no EPSG code"))?;
            let t = transformer(grid.epsg, epsg)?;
            let Ok(pos) = source_positions(&grid, &first.geo_transform(), &t, 8) else { return Ok(None) };
            let mut bands = Vec::with_capacity(opened.len());
            for tiff in &opened {
                match warp_positions(tiff, &grid, &pos, Resampling::Nearest, None)? {
                    Some(r) => bands.push(r.data),
                    None => return Ok(None),
                }
            }
            let inputs: Vec<&[f32]> = bands.iter().map(Vec::as_slice).collect();
            let mut out = vec![f32::NAN; grid.width * grid.height];
            expr.eval_slices(&inputs, &mut out);
            Ok(Some(out))
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
        let tiff = self.open_tile_asset(&format!("{}/index.tif", keys::result(account, id))).await?;
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

impl TileStyle {
    /// A named index (`ndvi`, ...) with its usual colours over [-1, 1].
    pub fn named(index: &str) -> Option<TileStyle> {
        let expression = crate::expr::named_index(index)?.to_owned();
        let colormap = if matches!(index, "ndwi" | "ndmi") { ColorRamp::RdBu } else { ColorRamp::RdYlGn };
        Some(TileStyle { expression, bands: BTreeMap::new(), colormap, rescale: (-1.0, 1.0) })
    }
}

/// The named indices an item's bands can make (through its assets' `eo:bands` common names).
pub fn available_indices(item: &EoItem) -> Vec<&'static str> {
    crate::expr::NAMED
        .iter()
        .copied()
        .filter(|name| {
            crate::expr::named_index(name)
                .and_then(|e| Expression::parse(e).ok())
                .is_some_and(|e| crate::compute::resolve_bands_for(item, &e, &BTreeMap::new()).is_ok())
        })
        .collect()
}
