//! Integration tests of the digital-twin engine: the GLB layout, the ENU frame of the root
//! transform, the quadtree and its bounding volumes, the property tables read back from the
//! binary, limits, terrain, determinism, the Khronos glTF Validator on generated content, and
//! Cesium's 3d-tiles-tools reading a whole tileset.
#![allow(clippy::unwrap_used)]

mod fuzz;
mod limits;
mod tiles;
mod tiles_tools;
mod validator;

use meridian_twin::Footprint;
use serde_json::{json, Value};

/// A decoded GLB: its JSON and its BIN chunk.
pub(crate) struct Glb {
    pub(crate) json: Value,
    pub(crate) bin: Vec<u8>,
}

fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}

/// Parses a GLB, checking its layout: header, chunk types, lengths and alignment, padding.
pub(crate) fn parse_glb(bytes: &[u8]) -> Glb {
    assert_eq!(&bytes[0..4], b"glTF");
    assert_eq!(u32_at(bytes, 4), 2, "version");
    assert_eq!(u32_at(bytes, 8) as usize, bytes.len(), "header length");
    assert_eq!(bytes.len() % 4, 0);
    let json_len = u32_at(bytes, 12) as usize;
    assert_eq!(&bytes[16..20], b"JSON");
    assert_eq!(json_len % 4, 0, "JSON chunk length");
    let text = &bytes[20..20 + json_len];
    let trimmed = text.iter().rposition(|&c| c != b' ').unwrap() + 1;
    assert!(json_len - trimmed < 4, "JSON padded with at most 3 spaces");
    let json: Value = serde_json::from_slice(&text[..trimmed]).unwrap();
    let at = 20 + json_len;
    let bin = if at < bytes.len() {
        let bin_len = u32_at(bytes, at) as usize;
        assert_eq!(&bytes[at + 4..at + 8], b"BIN\0");
        assert_eq!(bin_len % 4, 0, "BIN chunk length");
        assert_eq!(at + 8 + bin_len, bytes.len());
        let bin = bytes[at + 8..].to_vec();
        let declared = json["buffers"][0]["byteLength"].as_u64().unwrap() as usize;
        assert!(declared <= bin.len() && bin.len() - declared < 4);
        assert!(bin[declared..].iter().all(|&b| b == 0), "BIN padded with zeros");
        bin
    } else {
        Vec::new()
    };
    Glb { json, bin }
}

impl Glb {
    /// The bytes of a buffer view.
    pub(crate) fn view(&self, index: u64) -> &[u8] {
        let v = &self.json["bufferViews"][index as usize];
        let off = v["byteOffset"].as_u64().unwrap_or(0) as usize;
        &self.bin[off..off + v["byteLength"].as_u64().unwrap() as usize]
    }

    /// An accessor's components as f64 (FLOAT, UNSIGNED_SHORT or UNSIGNED_INT).
    pub(crate) fn accessor(&self, index: u64) -> Vec<f64> {
        let a = &self.json["accessors"][index as usize];
        let bytes = self.view(a["bufferView"].as_u64().unwrap());
        let per = match a["type"].as_str().unwrap() {
            "SCALAR" => 1,
            "VEC3" => 3,
            other => panic!("{other}"),
        };
        let n = a["count"].as_u64().unwrap() as usize * per;
        match a["componentType"].as_u64().unwrap() {
            5126 => {
                bytes.chunks_exact(4).take(n).map(|c| f64::from(f32::from_le_bytes(c.try_into().unwrap()))).collect()
            }
            5125 => {
                bytes.chunks_exact(4).take(n).map(|c| f64::from(u32::from_le_bytes(c.try_into().unwrap()))).collect()
            }
            5123 => {
                bytes.chunks_exact(2).take(n).map(|c| f64::from(u16::from_le_bytes(c.try_into().unwrap()))).collect()
            }
            other => panic!("component type {other}"),
        }
    }

    pub(crate) fn primitive(&self) -> &Value {
        &self.json["meshes"][0]["primitives"][0]
    }

    /// Positions in the tile's ENU frame: node translation added, y-up turned back to z-up.
    pub(crate) fn enu_positions(&self) -> Vec<[f64; 3]> {
        let t = &self.json["nodes"][0]["translation"];
        let t = [0, 1, 2].map(|k| t[k].as_f64().unwrap());
        let p = self.accessor(self.primitive()["attributes"]["POSITION"].as_u64().unwrap());
        p.chunks_exact(3).map(|g| [g[0] + t[0], -(g[2] + t[2]), g[1] + t[1]]).collect()
    }
}

/// A small deterministic generator (an LCG), so that tests need no random crate.
pub(crate) struct Lcg(pub(crate) u64);

impl Lcg {
    pub(crate) fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A rectangular footprint of `w` × `h` metres (roughly) at `lon`, `lat`.
pub(crate) fn rect(id: &str, lon: f64, lat: f64, w: f64, h: f64) -> Footprint {
    let (dl, dp) = (w / 98_800.0, h / 110_800.0);
    let mut props = serde_json::Map::new();
    props.insert("lot".into(), json!(id.trim_start_matches("p")));
    props.insert("plan".into(), json!("SP1234"));
    props.insert("tenure".into(), json!("Freehold"));
    Footprint {
        id: id.into(),
        polygon: vec![vec![[lon, lat], [lon + dl, lat], [lon + dl, lat + dp], [lon, lat + dp], [lon, lat]]],
        base: 20.0,
        height: 9.0,
        properties: props,
    }
}

/// `n` footprints scattered over about 2 km around Brisbane, some with holes.
pub(crate) fn scatter(n: usize, seed: u64) -> Vec<Footprint> {
    let mut rng = Lcg(seed);
    (0..n)
        .map(|i| {
            let (lon, lat) = (153.0 + rng.next() * 0.02, -27.5 + rng.next() * 0.02);
            let mut fp = rect(&format!("p{i}"), lon, lat, 8.0 + rng.next() * 20.0, 8.0 + rng.next() * 20.0);
            fp.height = 3.0 + rng.next() * 30.0;
            if i % 7 == 0 {
                // A courtyard in the middle of the rectangle.
                let r = &fp.polygon[0];
                let (w, s, e, n) = (r[0][0], r[0][1], r[2][0], r[2][1]);
                let (dx, dy) = ((e - w) / 4.0, (n - s) / 4.0);
                fp.polygon.push(vec![[w + dx, s + dy], [w + dx, n - dy], [e - dx, n - dy], [e - dx, s + dy]]);
            }
            fp
        })
        .collect()
}

/// `n` hostile footprints: random rings (self-intersecting, tiny, collinear), repeated and
/// non-finite points, stray holes, negative heights.
pub(crate) fn hostile(n: usize, seed: u64) -> Vec<Footprint> {
    let mut rng = Lcg(seed);
    let mut fps = Vec::new();
    for i in 0..n {
        let n = 1 + (rng.next() * 30.0) as usize;
        let scale = [1e-6, 1e-4, 1e-2, 0.0][i % 4];
        let (lon, lat) = (153.0 + rng.next() * 0.01, -27.5 + rng.next() * 0.01);
        let mut ring: Vec<[f64; 2]> =
            (0..n).map(|_| [lon + (rng.next() - 0.5) * scale, lat + (rng.next() - 0.5) * scale]).collect();
        match i % 9 {
            0 => ring.push(ring[0]),
            1 if n > 2 => ring[1] = ring[0],
            2 => ring.iter_mut().for_each(|p| p[1] = lat),
            3 if n > 1 => ring[n / 2][0] = f64::INFINITY,
            _ => {}
        }
        let mut polygon = vec![ring.clone()];
        if i % 5 == 0 {
            // A "hole" of random points: overlapping, outside, or degenerate.
            polygon.push(ring.iter().map(|p| [p[0] + scale * 0.1, p[1] - scale * 0.1]).take(n.min(4)).collect());
        }
        let height = if i % 13 == 0 { -1.0 } else { 1.0 + rng.next() * 50.0 };
        fps.push(Footprint { id: format!("h{i}"), polygon, base: 5.0, height, ..Footprint::default() });
    }
    fps
}
