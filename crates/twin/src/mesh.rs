//! Meshes in the ENU frame: footprints cleaned and projected, floors and roofs triangulated with
//! their holes (earcut), walls as quads, and the terrain grid. Flat shading: a vertex belongs to
//! one face, so each face carries its own normal.

use crate::frame::EnuFrame;
use crate::{Footprint, SkipReason, Terrain, TwinError};

/// Triangles with per-vertex normals and feature IDs, positions in metres in the ENU frame.
#[derive(Clone, Debug, Default)]
pub(crate) struct Mesh {
    pub(crate) positions: Vec<[f64; 3]>,
    pub(crate) normals: Vec<[f64; 3]>,
    pub(crate) features: Vec<u32>,
    pub(crate) indices: Vec<u32>,
}

impl Mesh {
    pub(crate) fn triangles(&self) -> usize {
        self.indices.len() / 3
    }

    /// The axis-aligned box of the positions, `[min, max]`.
    pub(crate) fn bounds(&self) -> Option<[[f64; 3]; 2]> {
        let mut it = self.positions.iter();
        let first = *it.next()?;
        let mut b = [first, first];
        for p in it {
            for i in 0..3 {
                b[0][i] = b[0][i].min(p[i]);
                b[1][i] = b[1][i].max(p[i]);
            }
        }
        Some(b)
    }

    fn push(&mut self, p: [f64; 3], n: [f64; 3], feature: u32) -> u32 {
        self.positions.push(p);
        self.normals.push(n);
        self.features.push(feature);
        (self.positions.len() - 1) as u32
    }
}

/// A footprint ready to extrude: rings in the ENU frame, the exterior counter-clockwise seen from
/// above and holes clockwise, so that a wall's outward side is always on the right of its edge.
#[derive(Clone, Debug)]
pub(crate) struct Prepared {
    /// The footprint's index in the input.
    pub(crate) index: usize,
    /// Each ring's vertices at the base.
    pub(crate) bottom: Vec<Vec<[f64; 3]>>,
    /// Each ring's vertices at the base plus the height.
    pub(crate) top: Vec<Vec<[f64; 3]>>,
    /// The area-weighted centroid of the exterior ring (east, north).
    pub(crate) centroid: [f64; 2],
    /// Planar area (m²): the exterior's less the holes'.
    pub(crate) area: f64,
}

impl Prepared {
    /// An upper bound of the triangles [`extrude`] makes: two caps of n + 2h − 2 triangles
    /// (earcut on n vertices with h holes) and two per wall edge.
    pub(crate) fn max_triangles(&self) -> usize {
        let n: usize = self.bottom.iter().map(Vec::len).sum();
        let h = self.bottom.len() - 1;
        2 * (n + 2 * h).saturating_sub(2) + 2 * n
    }
}

/// Below this planar area (m²) a ring is degenerate.
const MIN_AREA: f64 = 1e-4;

/// Signed area (m²) of a ring's (east, north) projection, positive when counter-clockwise.
pub(crate) fn signed_area(ring: &[[f64; 3]]) -> f64 {
    let n = ring.len();
    let mut s = 0.0;
    for i in 0..n {
        let (a, b) = (ring[i], ring[(i + 1) % n]);
        s += a[0] * b[1] - b[0] * a[1];
    }
    s / 2.0
}

/// Removes a closing point and repeated consecutive points.
fn dedup_ring(ring: &[[f64; 2]]) -> Vec<[f64; 2]> {
    let mut out: Vec<[f64; 2]> = Vec::with_capacity(ring.len());
    for p in ring {
        if out.last() != Some(p) {
            out.push(*p);
        }
    }
    while out.len() > 1 && out.first() == out.last() {
        out.pop();
    }
    out
}

/// Cleans and projects a footprint; `Ok(Err(reason))` when it is skipped.
pub(crate) fn prepare(
    index: usize,
    fp: &Footprint,
    frame: &EnuFrame,
    max_vertices: usize,
) -> Result<Result<Prepared, SkipReason>, TwinError> {
    let count: usize = fp.polygon.iter().map(Vec::len).sum();
    if count > max_vertices {
        return Err(TwinError::TooManyVertices { id: fp.id.clone(), count, max: max_vertices });
    }
    if !fp.base.is_finite() || !fp.height.is_finite() || fp.height <= 0.0 {
        return Ok(Err(SkipReason::BadHeight));
    }
    if fp.polygon.iter().flatten().flatten().any(|c| !c.is_finite())
        || fp.polygon.iter().flatten().any(|p| p[1].abs() > 90.0)
    {
        return Ok(Err(SkipReason::NonFinite));
    }
    if fp.polygon.is_empty() {
        return Ok(Err(SkipReason::TooFewPoints));
    }
    let mut bottom = Vec::with_capacity(fp.polygon.len());
    let mut top = Vec::with_capacity(fp.polygon.len());
    let mut area = 0.0;
    let mut centroid = [0.0; 2];
    for (r, ring) in fp.polygon.iter().enumerate() {
        let ring = dedup_ring(ring);
        if ring.len() < 3 {
            if r == 0 {
                return Ok(Err(SkipReason::TooFewPoints));
            }
            continue; // a degenerate hole cuts nothing
        }
        let mut b: Vec<[f64; 3]> = ring.iter().map(|p| frame.to_enu(p[0], p[1], fp.base)).collect();
        let mut t: Vec<[f64; 3]> = ring.iter().map(|p| frame.to_enu(p[0], p[1], fp.base + fp.height)).collect();
        let a = signed_area(&b);
        if a.abs() < MIN_AREA {
            if r == 0 {
                return Ok(Err(SkipReason::ZeroArea));
            }
            continue;
        }
        if (r == 0) != (a > 0.0) {
            b.reverse();
            t.reverse();
        }
        if r == 0 {
            area = a.abs();
            centroid = ring_centroid(&b);
        } else {
            area -= a.abs();
        }
        bottom.push(b);
        top.push(t);
    }
    if area < MIN_AREA {
        return Ok(Err(SkipReason::ZeroArea));
    }
    Ok(Ok(Prepared { index, bottom, top, centroid, area }))
}

fn ring_centroid(ring: &[[f64; 3]]) -> [f64; 2] {
    let n = ring.len();
    // Relative to the first vertex, for precision.
    let o = ring[0];
    let (mut cx, mut cy, mut a2) = (0.0, 0.0, 0.0);
    for i in 0..n {
        let (p, q) = (ring[i], ring[(i + 1) % n]);
        let (px, py, qx, qy) = (p[0] - o[0], p[1] - o[1], q[0] - o[0], q[1] - o[1]);
        let c = px * qy - qx * py;
        a2 += c;
        cx += (px + qx) * c;
        cy += (py + qy) * c;
    }
    if a2.abs() < f64::EPSILON {
        return [o[0], o[1]];
    }
    [o[0] + cx / (3.0 * a2), o[1] + cy / (3.0 * a2)]
}

/// Triangulates a polygon given as rings of (east, north) points, exterior first, into triangles
/// wound counter-clockwise seen from above (indices into the rings' concatenation).
pub(crate) fn triangulate(rings: &[Vec<[f64; 3]>], earcut: &mut earcut::Earcut<f64>, out: &mut Vec<u32>) {
    let mut holes = Vec::with_capacity(rings.len().saturating_sub(1));
    let mut start = 0u32;
    for (i, r) in rings.iter().enumerate() {
        if i > 0 {
            holes.push(start);
        }
        start += r.len() as u32;
    }
    let flat: Vec<[f64; 3]> = rings.iter().flatten().copied().collect();
    out.clear();
    earcut.earcut(flat.iter().map(|p| [p[0], p[1]]), &holes, out);
    for tri in out.chunks_exact_mut(3) {
        let (a, b, c) = (flat[tri[0] as usize], flat[tri[1] as usize], flat[tri[2] as usize]);
        let cross = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        if cross < 0.0 {
            tri.swap(1, 2);
        }
    }
}

/// Appends the closed solid of a prepared footprint to `mesh`: roof, floor and walls.
pub(crate) fn extrude(
    p: &Prepared,
    feature: u32,
    earcut: &mut earcut::Earcut<f64>,
    tris: &mut Vec<u32>,
    mesh: &mut Mesh,
) {
    triangulate(&p.bottom, earcut, tris);
    let up = [0.0, 0.0, 1.0];
    let down = [0.0, 0.0, -1.0];
    let roof = mesh.positions.len() as u32;
    for v in p.top.iter().flatten() {
        mesh.push(*v, up, feature);
    }
    let floor = mesh.positions.len() as u32;
    for v in p.bottom.iter().flatten() {
        mesh.push(*v, down, feature);
    }
    for t in tris.chunks_exact(3) {
        mesh.indices.extend([roof + t[0], roof + t[1], roof + t[2]]);
        mesh.indices.extend([floor + t[0], floor + t[2], floor + t[1]]);
    }
    for (bottom, top) in p.bottom.iter().zip(&p.top) {
        let n = bottom.len();
        for i in 0..n {
            let j = (i + 1) % n;
            let (dx, dy) = (bottom[j][0] - bottom[i][0], bottom[j][1] - bottom[i][1]);
            let len = dx.hypot(dy);
            if len == 0.0 {
                continue;
            }
            // Rings run with the solid on their left, so outward is to the right of the edge.
            let normal = [dy / len, -dx / len, 0.0];
            let a = mesh.push(bottom[i], normal, feature);
            let b = mesh.push(bottom[j], normal, feature);
            let c = mesh.push(top[j], normal, feature);
            let d = mesh.push(top[i], normal, feature);
            mesh.indices.extend([a, b, c, a, c, d]);
        }
    }
}

/// The terrain grid as a mesh, decimated to at most `max_side` × `max_side` vertices, with smooth
/// normals; triangles with a corner without data are left out.
pub(crate) fn terrain_mesh(t: &Terrain, frame: &EnuFrame, max_side: usize) -> Result<Mesh, TwinError> {
    t.validate()?;
    let max_side = max_side.max(2);
    let cols = sample_axis(t.width, max_side);
    let rows = sample_axis(t.height, max_side);
    let [w, s, e, n] = t.bounds;
    let (dx, dy) = ((e - w) / t.width as f64, (n - s) / t.height as f64);
    // Vertex index of each sampled (row, column), or none where there is no data.
    let mut slot = vec![u32::MAX; rows.len() * cols.len()];
    let mut mesh = Mesh::default();
    for (ri, &r) in rows.iter().enumerate() {
        for (ci, &c) in cols.iter().enumerate() {
            let h = t.heights[r * t.width + c];
            if h.is_finite() {
                let lon = w + (c as f64 + 0.5) * dx;
                let lat = n - (r as f64 + 0.5) * dy;
                slot[ri * cols.len() + ci] = mesh.push(frame.to_enu(lon, lat, f64::from(h)), [0.0; 3], 0);
            }
        }
    }
    let mut used = vec![false; mesh.positions.len()];
    for ri in 0..rows.len() - 1 {
        for ci in 0..cols.len() - 1 {
            let at = |r: usize, c: usize| slot[r * cols.len() + c];
            // Rows run north to south: a north-west, b north-east, c south-west, d south-east.
            let (a, b, c, d) = (at(ri, ci), at(ri, ci + 1), at(ri + 1, ci), at(ri + 1, ci + 1));
            for tri in [[c, d, b], [c, b, a]] {
                if tri.iter().all(|&v| v != u32::MAX) {
                    mesh.indices.extend(tri);
                    for v in tri {
                        used[v as usize] = true;
                    }
                }
            }
        }
    }
    // Area-weighted vertex normals.
    for tri in mesh.indices.chunks_exact(3) {
        let [a, b, c] = [tri[0], tri[1], tri[2]].map(|i| mesh.positions[i as usize]);
        let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        let nrm = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
        for &i in tri {
            let m = &mut mesh.normals[i as usize];
            for k in 0..3 {
                m[k] += nrm[k];
            }
        }
    }
    // Drop vertices no triangle uses, so that every vertex has a normal.
    let mut remap = vec![u32::MAX; mesh.positions.len()];
    let mut out = Mesh { indices: Vec::with_capacity(mesh.indices.len()), ..Mesh::default() };
    for (i, keep) in used.iter().enumerate() {
        if *keep {
            let m = mesh.normals[i];
            let len = (m[0] * m[0] + m[1] * m[1] + m[2] * m[2]).sqrt();
            let nrm = if len > 0.0 { [m[0] / len, m[1] / len, m[2] / len] } else { [0.0, 0.0, 1.0] };
            remap[i] = out.push(mesh.positions[i], nrm, 0);
        }
    }
    out.indices.extend(mesh.indices.iter().map(|&i| remap[i as usize]));
    Ok(out)
}

/// At most `max` indices spread over `0..len`, both ends included.
fn sample_axis(len: usize, max: usize) -> Vec<usize> {
    if len <= max {
        return (0..len).collect();
    }
    (0..max).map(|i| (i * (len - 1) + (max - 1) / 2) / (max - 1)).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn sampling_keeps_both_ends_and_stays_within_the_limit() {
        assert_eq!(sample_axis(5, 10), vec![0, 1, 2, 3, 4]);
        let s = sample_axis(1001, 256);
        assert_eq!(s.len(), 256);
        assert_eq!((s[0], s[255]), (0, 1000));
        assert!(s.windows(2).all(|w| w[0] < w[1]));
    }

    fn ring(points: &[[f64; 2]]) -> Vec<[f64; 3]> {
        points.iter().map(|p| [p[0], p[1], 0.0]).collect()
    }

    fn triangle_area_sum(rings: &[Vec<[f64; 3]>], tris: &[u32]) -> f64 {
        let flat: Vec<[f64; 3]> = rings.iter().flatten().copied().collect();
        tris.chunks_exact(3)
            .map(|t| {
                let (a, b, c) = (flat[t[0] as usize], flat[t[1] as usize], flat[t[2] as usize]);
                let cross = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
                assert!(cross > 0.0, "triangles are counter-clockwise seen from above");
                cross / 2.0
            })
            .sum()
    }

    #[test]
    fn triangles_cover_the_polygon_less_its_holes() {
        let mut earcut = earcut::Earcut::new();
        let mut tris = Vec::new();
        // A concave L.
        let l = vec![ring(&[[0.0, 0.0], [10.0, 0.0], [10.0, 4.0], [4.0, 4.0], [4.0, 10.0], [0.0, 10.0]])];
        triangulate(&l, &mut earcut, &mut tris);
        assert_eq!(tris.len(), 3 * 4);
        assert!((triangle_area_sum(&l, &tris) - 64.0).abs() < 1e-9);
        // A square with a square hole and a triangular hole (holes clockwise).
        let holed = vec![
            ring(&[[0.0, 0.0], [20.0, 0.0], [20.0, 20.0], [0.0, 20.0]]),
            ring(&[[2.0, 2.0], [2.0, 6.0], [6.0, 6.0], [6.0, 2.0]]),
            ring(&[[10.0, 10.0], [12.0, 16.0], [15.0, 10.0]]),
        ];
        triangulate(&holed, &mut earcut, &mut tris);
        let holes = 16.0 + 0.5 * 5.0 * 6.0;
        assert!((triangle_area_sum(&holed, &tris) - (400.0 - holes)).abs() < 1e-9);
        // A clockwise exterior still gives counter-clockwise triangles.
        let mut cw = l.clone();
        cw[0].reverse();
        triangulate(&cw, &mut earcut, &mut tris);
        assert!((triangle_area_sum(&cw, &tris) - 64.0).abs() < 1e-9);
    }

    /// A footprint near the frame's origin: a 20 m square (clockwise) with a 6 m square hole.
    fn holed_footprint() -> (Footprint, EnuFrame) {
        let frame = EnuFrame::new(153.0, -27.5, 0.0);
        let (dl, dp) = (1.0 / 98_800.0, 1.0 / 110_800.0);
        let sq = |x0: f64, y0: f64, s: f64| {
            vec![
                [153.0 + x0 * dl, -27.5 + y0 * dp],
                [153.0 + x0 * dl, -27.5 + (y0 + s) * dp],
                [153.0 + (x0 + s) * dl, -27.5 + (y0 + s) * dp],
                [153.0 + (x0 + s) * dl, -27.5 + y0 * dp],
            ]
        };
        let mut hole = sq(7.0, 7.0, 6.0);
        hole.reverse();
        let fp = Footprint {
            id: "x".into(),
            polygon: vec![sq(0.0, 0.0, 20.0), hole],
            base: 12.0,
            height: 7.5,
            ..Footprint::default()
        };
        (fp, frame)
    }

    #[test]
    fn extruded_solids_are_closed_with_outward_normals() {
        let (fp, frame) = holed_footprint();
        let p = prepare(0, &fp, &frame, 100).unwrap().unwrap();
        assert!(signed_area(&p.bottom[0]) > 0.0 && signed_area(&p.bottom[1]) < 0.0);
        let mut mesh = Mesh::default();
        extrude(&p, 3, &mut earcut::Earcut::new(), &mut Vec::new(), &mut mesh);
        assert!(mesh.features.iter().all(|&f| f == 3));
        assert!(mesh.triangles() <= p.max_triangles());
        // Every directed edge (by position) has exactly one reverse: closed and consistently wound.
        let key = |i: u32| mesh.positions[i as usize].map(f64::to_bits);
        let mut edges = std::collections::HashMap::new();
        for t in mesh.indices.chunks_exact(3) {
            for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
                *edges.entry((key(a), key(b))).or_insert(0) += 1;
            }
        }
        for (&(a, b), &n) in &edges {
            assert_eq!(n, 1, "a directed edge used twice");
            assert_eq!(edges.get(&(b, a)), Some(&1), "an edge without its reverse: the solid is open");
        }
        // Each triangle's winding agrees with its vertices' normal, and the signed volume is
        // positive and equal to area × height: the normals point out.
        let mut volume = 0.0;
        for t in mesh.indices.chunks_exact(3) {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| mesh.positions[i as usize]);
            let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
            let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
            let n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
            let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            let vn = mesh.normals[t[0] as usize];
            assert!((n[0] * vn[0] + n[1] * vn[1] + n[2] * vn[2]) / len > 0.999);
            volume += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
                + a[2] * (b[0] * c[1] - b[1] * c[0]))
                / 6.0;
        }
        assert!((p.area - (400.0 - 36.0)).abs() < 1.0, "{}", p.area);
        assert!((volume - p.area * 7.5).abs() / volume < 1e-3, "{volume}");
    }

    #[test]
    fn rings_are_deduplicated_and_unclosed() {
        let r = dedup_ring(&[[0.0, 0.0], [1.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 0.0]]);
        assert_eq!(r, vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]]);
    }
}
