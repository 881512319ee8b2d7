//! WGS84 geodetic coordinates, Earth-centred Earth-fixed (ECEF) coordinates and the local
//! East-North-Up (ENU) frame every tile of a tileset is expressed in.

/// WGS84 semi-major axis (m).
pub const WGS84_A: f64 = 6_378_137.0;
/// WGS84 flattening.
pub const WGS84_F: f64 = 1.0 / 298.257_223_563;

/// ECEF coordinates (m) of a longitude, latitude (degrees) and ellipsoidal height (m).
pub fn geodetic_to_ecef(lon: f64, lat: f64, h: f64) -> [f64; 3] {
    let e2 = WGS84_F * (2.0 - WGS84_F);
    let (sl, cl) = lon.to_radians().sin_cos();
    let (sp, cp) = lat.to_radians().sin_cos();
    let n = WGS84_A / (1.0 - e2 * sp * sp).sqrt();
    [(n + h) * cp * cl, (n + h) * cp * sl, (n * (1.0 - e2) + h) * sp]
}

/// A local East-North-Up frame: x east, y north, z up along the ellipsoid normal at its origin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EnuFrame {
    /// Longitude, latitude (degrees) and ellipsoidal height (m) of the origin.
    pub origin: [f64; 3],
    ecef: [f64; 3],
    east: [f64; 3],
    north: [f64; 3],
    up: [f64; 3],
}

impl EnuFrame {
    /// The frame at `lon`, `lat` (degrees), `h` (m above the ellipsoid).
    pub fn new(lon: f64, lat: f64, h: f64) -> Self {
        let (sl, cl) = lon.to_radians().sin_cos();
        let (sp, cp) = lat.to_radians().sin_cos();
        Self {
            origin: [lon, lat, h],
            ecef: geodetic_to_ecef(lon, lat, h),
            east: [-sl, cl, 0.0],
            north: [-sp * cl, -sp * sl, cp],
            up: [cp * cl, cp * sl, sp],
        }
    }

    /// The position (m) in this frame of a longitude, latitude (degrees) and height (m).
    pub fn to_enu(&self, lon: f64, lat: f64, h: f64) -> [f64; 3] {
        let p = geodetic_to_ecef(lon, lat, h);
        let d = [p[0] - self.ecef[0], p[1] - self.ecef[1], p[2] - self.ecef[2]];
        [dot(d, self.east), dot(d, self.north), dot(d, self.up)]
    }

    /// The ECEF position of a point given in this frame.
    pub fn to_ecef(&self, enu: [f64; 3]) -> [f64; 3] {
        let mut out = self.ecef;
        for (i, o) in out.iter_mut().enumerate() {
            *o += enu[0] * self.east[i] + enu[1] * self.north[i] + enu[2] * self.up[i];
        }
        out
    }

    /// The 4×4 column-major matrix taking this frame's coordinates to ECEF: a 3D Tiles `transform`.
    pub fn transform(&self) -> [f64; 16] {
        let (e, n, u, o) = (self.east, self.north, self.up, self.ecef);
        [e[0], e[1], e[2], 0.0, n[0], n[1], n[2], 0.0, u[0], u[1], u[2], 0.0, o[0], o[1], o[2], 1.0]
    }
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// glTF is y-up: an ENU (z-up) vector as glTF stores it, `[x, z, -y]`. A 3D Tiles runtime rotates
/// glTF content by +90° about x when it loads it, which gives the ENU vector back.
pub(crate) fn enu_to_gltf(v: [f64; 3]) -> [f64; 3] {
    [v[0], v[2], -v[1]]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ecef_of_known_points() {
        let p = geodetic_to_ecef(0.0, 0.0, 0.0);
        assert!((p[0] - WGS84_A).abs() < 1e-6 && p[1].abs() < 1e-6 && p[2].abs() < 1e-6);
        // The pole is at the semi-minor axis b = a(1 - f) = 6 356 752.314 245 m.
        let p = geodetic_to_ecef(0.0, 90.0, 0.0);
        assert!((p[2] - 6_356_752.314_245).abs() < 1e-3, "{p:?}");
        // lon 90°, lat 0°, h 100 m: on the y axis.
        let p = geodetic_to_ecef(90.0, 0.0, 100.0);
        assert!(p[0].abs() < 1e-6 && (p[1] - WGS84_A - 100.0).abs() < 1e-6);
    }

    #[test]
    fn the_frame_origin_is_its_geodetic_position_and_axes_are_orthonormal() {
        let f = EnuFrame::new(153.0, -27.5, 0.0);
        let t = f.transform();
        let o = geodetic_to_ecef(153.0, -27.5, 0.0);
        assert_eq!([t[12], t[13], t[14]], o);
        let cols = [[t[0], t[1], t[2]], [t[4], t[5], t[6]], [t[8], t[9], t[10]]];
        for (i, a) in cols.iter().enumerate() {
            for (j, b) in cols.iter().enumerate() {
                let d = dot(*a, *b);
                assert!((d - if i == j { 1.0 } else { 0.0 }).abs() < 1e-12);
            }
        }
        let back = f.to_enu(153.0, -27.5, 0.0);
        assert!(back.iter().all(|c| c.abs() < 1e-6), "{back:?}");
        let up = f.to_enu(153.0, -27.5, 50.0);
        assert!(up[0].abs() < 1e-6 && up[1].abs() < 1e-6 && (up[2] - 50.0).abs() < 1e-6);
        let e = f.to_enu(153.001, -27.5, 0.0);
        assert!(e[0] > 98.0 && e[0] < 99.5 && e[1].abs() < 0.01, "{e:?}");
        let roundtrip = f.to_ecef(e);
        let direct = geodetic_to_ecef(153.001, -27.5, 0.0);
        assert!((0..3).all(|i| (roundtrip[i] - direct[i]).abs() < 1e-6));
    }
}
