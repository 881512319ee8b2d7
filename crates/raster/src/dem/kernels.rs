//! The per-window formulas, written as gdaldem writes them (including where it sums in single
//! precision) so that results agree to the last bit where possible.

use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::f64::consts::FRAC_PI_2;

/// How the gradient is estimated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum GradientAlg {
    /// Horn (1981): 3×3 weighted differences; gdaldem's default.
    #[default]
    Horn,
    /// Zevenbergen & Thorne (1987): 4-neighbour differences, smoother for gentle terrain.
    ZevenbergenThorne,
}

/// Hillshade options, named and defaulted like gdaldem's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HillshadeOptions {
    /// Light direction in degrees clockwise from north.
    pub azimuth: f64,
    /// Light altitude in degrees above the horizon.
    pub altitude: f64,
    /// Vertical exaggeration.
    pub z_factor: f64,
    /// Ratio of horizontal to vertical units (111120 for degrees with heights in metres).
    pub scale: f64,
    pub algorithm: GradientAlg,
    /// Combine hillshade with slope shading.
    pub combined: bool,
    /// Weighted light from 225°, 270°, 315° and 360°.
    pub multidirectional: bool,
    pub compute_edges: bool,
}

impl Default for HillshadeOptions {
    fn default() -> Self {
        Self {
            azimuth: 315.0,
            altitude: 45.0,
            z_factor: 1.0,
            scale: 1.0,
            algorithm: GradientAlg::Horn,
            combined: false,
            multidirectional: false,
            compute_edges: false,
        }
    }
}

impl HillshadeOptions {
    pub(crate) fn validate(&self) -> Result<()> {
        if !(0.0..=360.0).contains(&self.azimuth) {
            return Err(Error::arg("azimuth must be between 0 and 360"));
        }
        if !(0.0..=90.0).contains(&self.altitude) {
            return Err(Error::arg("altitude must be between 0 and 90"));
        }
        if !(self.z_factor.is_finite() && self.z_factor > 0.0) {
            return Err(Error::arg("z_factor must be positive"));
        }
        if !(self.scale.is_finite() && self.scale > 0.0) {
            return Err(Error::arg("scale must be positive"));
        }
        if self.combined && self.multidirectional {
            return Err(Error::arg("combined and multidirectional cannot be used together"));
        }
        Ok(())
    }
}

/// Slope units.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SlopeFormat {
    #[default]
    Degrees,
    Percent,
}

/// Slope options.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SlopeOptions {
    pub format: SlopeFormat,
    pub scale: f64,
    pub algorithm: GradientAlg,
    pub compute_edges: bool,
}

impl Default for SlopeOptions {
    fn default() -> Self {
        Self { format: SlopeFormat::Degrees, scale: 1.0, algorithm: GradientAlg::Horn, compute_edges: false }
    }
}

impl SlopeOptions {
    pub(crate) fn validate(&self) -> Result<()> {
        if !(self.scale.is_finite() && self.scale > 0.0) {
            return Err(Error::arg("scale must be positive"));
        }
        Ok(())
    }
}

/// Aspect options.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AspectOptions {
    /// Counter-clockwise from east instead of clockwise from north.
    pub trigonometric: bool,
    /// Flat areas get 0 instead of nodata.
    pub zero_for_flat: bool,
    pub algorithm: GradientAlg,
    pub compute_edges: bool,
}

/// TRI formula.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum TriAlg {
    /// Riley et al. (1999): root of the summed squared differences; gdaldem's default.
    #[default]
    Riley,
    /// Wilson et al. (2007): mean absolute difference, for bathymetry.
    Wilson,
}

/// Horn's two 4-term sums, differenced in single precision as gdaldem does.
#[inline]
fn horn_xy(w: &[f32; 9]) -> (f64, f64) {
    let x = (w[0] + w[3] + w[3] + w[6]) - (w[2] + w[5] + w[5] + w[8]);
    let y = (w[6] + w[7] + w[7] + w[8]) - (w[0] + w[1] + w[1] + w[2]);
    (x as f64, y as f64)
}

#[inline]
fn zt_xy(w: &[f32; 9]) -> (f64, f64) {
    ((w[3] - w[5]) as f64, (w[7] - w[1]) as f64)
}

#[inline]
fn gradient<const ZT: bool>(w: &[f32; 9]) -> (f64, f64) {
    if ZT {
        zt_xy(w)
    } else {
        horn_xy(w)
    }
}

pub(crate) struct Hillshade {
    inv_ewres: f64,
    inv_nsres: f64,
    sin_alt: f64,
    cos_alt_mul_z: f64,
    cos_az_mul_cos_alt_mul_z: f64,
    sin_az_mul_cos_alt_mul_z: f64,
    square_z: f64,
}

impl Hillshade {
    pub(crate) fn new(o: &HillshadeOptions, ewres: f64, nsres: f64) -> Self {
        let z_scaled = o.z_factor / (if o.algorithm == GradientAlg::ZevenbergenThorne { 2.0 } else { 8.0 } * o.scale);
        let alt = o.altitude.to_radians();
        let az = o.azimuth.to_radians();
        let cos_alt_mul_z = alt.cos() * z_scaled;
        Self {
            inv_ewres: 1.0 / ewres,
            inv_nsres: 1.0 / nsres,
            sin_alt: alt.sin(),
            cos_alt_mul_z,
            cos_az_mul_cos_alt_mul_z: az.cos() * cos_alt_mul_z,
            sin_az_mul_cos_alt_mul_z: az.sin() * cos_alt_mul_z,
            square_z: z_scaled * z_scaled,
        }
    }

    #[inline]
    fn xy<const ZT: bool>(&self, w: &[f32; 9]) -> (f64, f64) {
        let (x, y) = gradient::<ZT>(w);
        (x * self.inv_ewres, y * self.inv_nsres)
    }

    #[inline]
    pub(crate) fn standard<const ZT: bool>(&self, w: &[f32; 9]) -> f32 {
        let (x, y) = self.xy::<ZT>(w);
        let cang = 254.0 * (self.sin_alt - (y * self.cos_az_mul_cos_alt_mul_z - x * self.sin_az_mul_cos_alt_mul_z))
            / (1.0 + self.square_z * (x * x + y * y)).sqrt();
        if cang <= 0.0 {
            1.0
        } else {
            (1.0 + cang) as f32
        }
    }

    #[inline]
    pub(crate) fn combined<const ZT: bool>(&self, w: &[f32; 9]) -> f32 {
        let (x, y) = self.xy::<ZT>(w);
        let slope = (x * x + y * y) * self.square_z;
        let c = (self.sin_alt - (y * self.cos_az_mul_cos_alt_mul_z - x * self.sin_az_mul_cos_alt_mul_z))
            / (1.0 + slope).sqrt();
        let cang = c.clamp(-1.0, 1.0).acos();
        let cang = 1.0 - cang * slope.sqrt().atan() / (FRAC_PI_2 * FRAC_PI_2);
        if cang <= 0.0 {
            1.0
        } else {
            (1.0 + 254.0 * cang) as f32
        }
    }

    #[inline]
    pub(crate) fn multi<const ZT: bool>(&self, w: &[f32; 9]) -> f32 {
        let (x, y) = self.xy::<ZT>(w);
        let xx = x * x;
        let yy = y * y;
        let xx_plus_yy = xx + yy;
        if xx_plus_yy == 0.0 {
            return (1.0 + 254.0 * self.sin_alt) as f32;
        }
        // Shade for one light azimuth, clamped at zero (the same formula as `standard`).
        let shade = |sin_az: f64, cos_az: f64| -> f64 {
            let v = self.sin_alt - (y * cos_az - x * sin_az) * self.cos_alt_mul_z;
            v.max(0.0)
        };
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let v225 = shade(-h, -h);
        let v270 = shade(-1.0, 0.0);
        let v315 = shade(-h, h);
        let v360 = shade(0.0, 1.0);
        let w225 = 0.5 * xx_plus_yy - x * y;
        let w270 = xx;
        let w315 = xx_plus_yy - w225;
        let w360 = yy;
        let cang = 127.0 * (w225 * v225 + w270 * v270 + w315 * v315 + w360 * v360)
            / xx_plus_yy
            / (1.0 + self.square_z * xx_plus_yy).sqrt();
        (1.0 + cang) as f32
    }
}

pub(crate) struct Slope {
    ewres: f64,
    nsres: f64,
    scale: f64,
    degrees: bool,
}

impl Slope {
    pub(crate) fn new(o: &SlopeOptions, ewres: f64, nsres: f64) -> Self {
        Self { ewres, nsres, scale: o.scale, degrees: o.format == SlopeFormat::Degrees }
    }

    #[inline]
    fn finish(&self, key: f64, div: f64) -> f32 {
        if self.degrees {
            ((key.sqrt() / (div * self.scale)).atan().to_degrees()) as f32
        } else {
            (100.0 * (key.sqrt() / (div * self.scale))) as f32
        }
    }

    #[inline]
    pub(crate) fn horn(&self, w: &[f32; 9]) -> f32 {
        let (x, y) = horn_xy(w);
        let (dx, dy) = (x / self.ewres, y / self.nsres);
        self.finish(dx * dx + dy * dy, 8.0)
    }

    #[inline]
    pub(crate) fn zt(&self, w: &[f32; 9]) -> f32 {
        let (x, y) = zt_xy(w);
        let (dx, dy) = (x / self.ewres, y / self.nsres);
        self.finish(dx * dx + dy * dy, 2.0)
    }
}

pub(crate) struct Aspect {
    azimuth: bool,
    flat: f32,
}

impl Aspect {
    pub(crate) fn new(o: &AspectOptions) -> Self {
        Self { azimuth: !o.trigonometric, flat: if o.zero_for_flat { 0.0 } else { super::FLOAT_NODATA } }
    }

    #[inline]
    fn finish(&self, dx: f32, dy: f32) -> f32 {
        if dx == 0.0 && dy == 0.0 {
            return self.flat;
        }
        let mut aspect = ((dy as f64).atan2(-(dx as f64)).to_degrees()) as f32;
        if self.azimuth {
            aspect = if aspect > 90.0 { 450.0 - aspect } else { 90.0 - aspect };
        } else if aspect < 0.0 {
            aspect += 360.0;
        }
        if aspect == 360.0 {
            0.0
        } else {
            aspect
        }
    }

    #[inline]
    pub(crate) fn horn(&self, w: &[f32; 9]) -> f32 {
        let dx = (w[2] + w[5] + w[5] + w[8]) - (w[0] + w[3] + w[3] + w[6]);
        let dy = (w[6] + w[7] + w[7] + w[8]) - (w[0] + w[1] + w[1] + w[2]);
        self.finish(dx, dy)
    }

    #[inline]
    pub(crate) fn zt(&self, w: &[f32; 9]) -> f32 {
        self.finish(w[5] - w[3], w[7] - w[1])
    }
}

#[inline]
pub(crate) fn tri_riley(w: &[f32; 9]) -> f32 {
    let sq = |v: f32| (v as f64) * (v as f64);
    let c = w[4];
    (sq(w[0] - c)
        + sq(w[1] - c)
        + sq(w[2] - c)
        + sq(w[3] - c)
        + sq(w[5] - c)
        + sq(w[6] - c)
        + sq(w[7] - c)
        + sq(w[8] - c))
    .sqrt() as f32
}

#[inline]
pub(crate) fn tri_wilson(w: &[f32; 9]) -> f32 {
    let c = w[4];
    ((w[0] - c).abs()
        + (w[1] - c).abs()
        + (w[2] - c).abs()
        + (w[3] - c).abs()
        + (w[5] - c).abs()
        + (w[6] - c).abs()
        + (w[7] - c).abs()
        + (w[8] - c).abs())
        / 8.0
}

#[inline]
pub(crate) fn tpi(w: &[f32; 9]) -> f32 {
    w[4] - ((w[0] + w[1] + w[2] + w[3] + w[5] + w[6] + w[7] + w[8]) / 8.0)
}

#[inline]
pub(crate) fn roughness(w: &[f32; 9]) -> f32 {
    let mut lo = w[0];
    let mut hi = w[0];
    for &v in &w[1..] {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    hi - lo
}
