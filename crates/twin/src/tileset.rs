//! The quadtree of footprints and the `tileset.json` that describes it.
//!
//! Refinement is `ADD`: each footprint is in exactly one leaf, inner tiles have no building
//! content, so a client shows a leaf's buildings once it has refined down to it and never has to
//! swap coarse geometry for fine. The terrain, when there is one, is the root's content and its
//! only child is the buildings' quadtree, so the ground shows first.

use crate::frame::EnuFrame;
use crate::glb::{write_glb, Metadata};
use crate::mesh::{extrude, prepare, terrain_mesh, Mesh, Prepared};
use crate::metadata::{Schema, CLASS};
use crate::{BuiltTileset, Footprint, Result, Skipped, Terrain, TileSummary, TilesetOptions, TwinError};
use rayon::prelude::*;
use serde_json::{json, Value};

const BUILDING_COLOR: [f32; 4] = [0.82, 0.80, 0.76, 1.0];
const TERRAIN_COLOR: [f32; 4] = [0.55, 0.62, 0.45, 1.0];
/// Bounding boxes are grown by this much (m) on every side, so that they contain their content
/// after its positions are rounded to f32.
const BOX_PAD: f64 = 0.05;
/// The terrain content's uri.
pub const TERRAIN_URI: &str = "tiles/terrain.glb";

/// A quadtree node over the footprints' centroids.
struct Node {
    depth: u8,
    x: u32,
    y: u32,
    /// Which part of an unsplittable cell this leaf is (see [`split`]).
    part: Option<usize>,
    /// Indices into the prepared footprints (leaves only).
    items: Vec<usize>,
    children: Vec<Node>,
}

/// The square the quadtree covers: south-west corner (east, north) and side (m).
#[derive(Clone, Copy)]
struct Square {
    min: [f64; 2],
    size: f64,
}

/// Splits a cell until no leaf holds more than `max_features_per_tile` footprints. A cell that
/// a quadtree cannot split (at `max_depth`, or all its centroids equal: stacked strata lots)
/// is divided into parts, sibling leaves of the same cell, in input order.
fn split(
    square: Square,
    depth: u8,
    x: u32,
    y: u32,
    items: Vec<usize>,
    prepared: &[Prepared],
    opts: &TilesetOptions,
) -> Node {
    let max = opts.max_features_per_tile;
    if items.len() <= max {
        return Node { depth, x, y, part: None, items, children: Vec::new() };
    }
    let first = prepared[items[0]].centroid;
    if depth >= opts.max_depth || items.iter().all(|&i| prepared[i].centroid == first) {
        let children = items
            .chunks(max)
            .enumerate()
            .map(|(k, part)| Node { depth, x, y, part: Some(k), items: part.to_vec(), children: Vec::new() })
            .collect();
        return Node { depth, x, y, part: None, items: Vec::new(), children };
    }
    let cell = square.size / f64::from(1u32 << depth);
    let mid = [square.min[0] + (f64::from(x) + 0.5) * cell, square.min[1] + (f64::from(y) + 0.5) * cell];
    let mut quads: [Vec<usize>; 4] = Default::default();
    for i in items {
        let c = prepared[i].centroid;
        let q = usize::from(c[0] >= mid[0]) + 2 * usize::from(c[1] >= mid[1]);
        quads[q].push(i);
    }
    let mut children = Vec::new();
    for (q, items) in quads.into_iter().enumerate() {
        if !items.is_empty() {
            let (cx, cy) = (2 * x + (q as u32 & 1), 2 * y + (q as u32 >> 1));
            children.push(split(square, depth + 1, cx, cy, items, prepared, opts));
        }
    }
    Node { depth, x, y, part: None, items: Vec::new(), children }
}

/// The leaves in depth-first order.
fn leaves<'a>(node: &'a Node, out: &mut Vec<&'a Node>) {
    if node.children.is_empty() {
        out.push(node);
    }
    for c in &node.children {
        leaves(c, out);
    }
}

fn leaf_uri(n: &Node) -> String {
    match n.part {
        None => format!("tiles/{}/{}/{}.glb", n.depth, n.x, n.y),
        Some(k) => format!("tiles/{}/{}/{}-{k}.glb", n.depth, n.x, n.y),
    }
}

/// A 3D Tiles `box` around `[min, max]`, grown by [`BOX_PAD`].
fn bounding_box(b: [[f64; 3]; 2]) -> Value {
    let c = [0, 1, 2].map(|k| (b[0][k] + b[1][k]) / 2.0);
    let h = [0, 1, 2].map(|k| (b[1][k] - b[0][k]) / 2.0 + BOX_PAD);
    json!({ "box": [c[0], c[1], c[2], h[0], 0.0, 0.0, 0.0, h[1], 0.0, 0.0, 0.0, h[2]] })
}

fn union(a: [[f64; 3]; 2], b: [[f64; 3]; 2]) -> [[f64; 3]; 2] {
    [[0, 1, 2].map(|k| a[0][k].min(b[0][k])), [0, 1, 2].map(|k| a[1][k].max(b[1][k]))]
}

fn diagonal(b: [[f64; 3]; 2]) -> f64 {
    (0..3).map(|k| (b[1][k] - b[0][k]).powi(2)).sum::<f64>().sqrt()
}

fn centre(b: [[f64; 3]; 2]) -> [f64; 3] {
    [0, 1, 2].map(|k| (b[0][k] + b[1][k]) / 2.0)
}

/// The JSON of a quadtree node and the union of its content boxes. An inner tile's geometric
/// error is a quarter of its cell's side: it halves with each level, and a leaf's is 0.
fn node_json(
    node: &Node,
    square: Square,
    leaf_bounds: &mut std::slice::Iter<'_, [[f64; 3]; 2]>,
) -> (Value, [[f64; 3]; 2]) {
    if node.children.is_empty() {
        let b = *leaf_bounds.next().unwrap_or(&[[0.0; 3]; 2]);
        let tile = json!({ "boundingVolume": bounding_box(b), "geometricError": 0.0,
                           "content": { "uri": leaf_uri(node) } });
        return (tile, b);
    }
    let mut children = Vec::new();
    let mut bounds: Option<[[f64; 3]; 2]> = None;
    for c in &node.children {
        let (j, b) = node_json(c, square, leaf_bounds);
        children.push(j);
        bounds = Some(bounds.map_or(b, |a| union(a, b)));
    }
    let b = bounds.unwrap_or([[0.0; 3]; 2]);
    let error = square.size / f64::from(1u32 << node.depth) / 4.0;
    (json!({ "boundingVolume": bounding_box(b), "geometricError": error, "children": children }), b)
}

/// Builds a 3D Tiles 1.1 tileset from footprints and an optional terrain grid.
///
/// Invalid footprints (see [`crate::SkipReason`]) are left out and listed in
/// [`BuiltTileset::skipped`]; exceeding a limit of [`TilesetOptions`] is an error. The output is
/// deterministic: the same input gives the same bytes.
pub fn build_tileset(
    footprints: &[Footprint],
    terrain: Option<&Terrain>,
    opts: &TilesetOptions,
) -> Result<BuiltTileset> {
    // Feature IDs are stored as f32, exact up to 2^24.
    if opts.max_features_per_tile == 0
        || opts.max_features_per_tile > 1 << 24
        || opts.max_depth > 24
        || opts.terrain_max_side < 2
    {
        return Err(TwinError::Options(
            "max_features_per_tile must be in 1..=16777216, max_depth at most 24, terrain_max_side at least 2".into(),
        ));
    }
    if footprints.len() > opts.max_footprints {
        return Err(TwinError::TooManyFootprints { count: footprints.len(), max: opts.max_footprints });
    }
    if let Some(t) = terrain {
        t.validate()?;
    }
    let frame = origin(footprints, terrain).ok_or(TwinError::Empty)?;

    let results: Vec<_> = footprints
        .par_iter()
        .enumerate()
        .map(|(i, fp)| prepare(i, fp, &frame, opts.max_vertices_per_polygon))
        .collect();
    let mut prepared = Vec::with_capacity(footprints.len());
    let mut skipped = Vec::new();
    for (i, r) in results.into_iter().enumerate() {
        match r? {
            Ok(p) => prepared.push(p),
            Err(reason) => skipped.push(Skipped { index: i, id: footprints[i].id.clone(), reason }),
        }
    }
    // Checked before anything is meshed, from upper bounds.
    let terrain_bound = terrain.map_or(0, |t| {
        let side = |n: usize| n.min(opts.terrain_max_side).saturating_sub(1);
        2 * side(t.width) * side(t.height)
    });
    let bound: usize = prepared.iter().map(Prepared::max_triangles).sum::<usize>() + terrain_bound;
    if bound > opts.max_triangles {
        return Err(TwinError::TooManyTriangles { count: bound, max: opts.max_triangles });
    }
    let terrain_mesh = terrain.map(|t| terrain_mesh(t, &frame, opts.terrain_max_side)).transpose()?;
    if terrain_mesh.as_ref().is_some_and(|m| m.indices.is_empty()) {
        return Err(TwinError::Terrain("no two neighbouring cells have data".into()));
    }
    if prepared.is_empty() && terrain_mesh.is_none() {
        return Err(TwinError::Empty);
    }

    let mut contents = Vec::new();
    let mut tiles = Vec::new();
    let mut buildings_root = None;
    if !prepared.is_empty() {
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for p in &prepared {
            for k in 0..2 {
                lo[k] = lo[k].min(p.centroid[k]);
                hi[k] = hi[k].max(p.centroid[k]);
            }
        }
        let size = (hi[0] - lo[0]).max(hi[1] - lo[1]).max(1.0);
        let square = Square { min: [(lo[0] + hi[0] - size) / 2.0, (lo[1] + hi[1] - size) / 2.0], size };
        let root = split(square, 0, 0, 0, (0..prepared.len()).collect(), &prepared, opts);
        let mut leaf_nodes = Vec::new();
        leaves(&root, &mut leaf_nodes);
        let schema = Schema::new(prepared.iter().map(|p| &footprints[p.index]));
        let built: Vec<Result<(String, Vec<u8>, TileSummary)>> = leaf_nodes
            .par_iter()
            .map_init(
                || (earcut::Earcut::new(), Vec::new()),
                |(earcut, tris), node| {
                    let features: Vec<&Prepared> = node.items.iter().map(|&i| &prepared[i]).collect();
                    let mut mesh = Mesh::default();
                    for (fid, p) in features.iter().enumerate() {
                        extrude(p, fid as u32, earcut, tris, &mut mesh);
                    }
                    let bounds = mesh.bounds().unwrap_or([[0.0; 3]; 2]);
                    let md = Metadata {
                        schema: &schema.json,
                        class: CLASS,
                        count: features.len(),
                        columns: schema.columns(footprints, &features),
                    };
                    let uri = leaf_uri(node);
                    let glb = write_glb(&mesh, centre(bounds), Some(&md), BUILDING_COLOR)
                        .ok_or_else(|| TwinError::TileTooLarge { uri: uri.clone() })?;
                    let summary = TileSummary {
                        uri: uri.clone(),
                        depth: node.depth,
                        features: features.iter().map(|p| p.index).collect(),
                        triangles: mesh.triangles(),
                        bounds,
                    };
                    Ok((uri, glb, summary))
                },
            )
            .collect();
        let built = built.into_iter().collect::<Result<Vec<_>>>()?;
        let leaf_bounds: Vec<[[f64; 3]; 2]> = built.iter().map(|b| b.2.bounds).collect();
        let (json, bounds) = node_json(&root, square, &mut leaf_bounds.iter());
        for (uri, glb, summary) in built {
            contents.push((uri, glb));
            tiles.push(summary);
        }
        buildings_root = Some((json, bounds));
    }

    let mut root = match (terrain_mesh, buildings_root) {
        (Some(mesh), buildings) => {
            let tb = mesh.bounds().unwrap_or([[0.0; 3]; 2]);
            let glb = write_glb(&mesh, centre(tb), None, TERRAIN_COLOR)
                .ok_or_else(|| TwinError::TileTooLarge { uri: TERRAIN_URI.into() })?;
            let mut bounds = tb;
            let mut tile = json!({ "content": { "uri": TERRAIN_URI } });
            let mut error = diagonal(tb) / 4.0;
            if let Some((child, b)) = buildings {
                bounds = union(bounds, b);
                error = error.max(2.0 * child["geometricError"].as_f64().unwrap_or(0.0));
                tile["children"] = json!([child]);
            }
            tile["boundingVolume"] = bounding_box(bounds);
            tile["geometricError"] = json!(error.max(1.0));
            tiles.insert(
                0,
                TileSummary {
                    uri: TERRAIN_URI.into(),
                    depth: 0,
                    features: Vec::new(),
                    triangles: mesh.triangles(),
                    bounds: tb,
                },
            );
            contents.insert(0, (TERRAIN_URI.to_owned(), glb));
            (tile, bounds)
        }
        (None, Some(b)) => b,
        (None, None) => return Err(TwinError::Empty),
    };
    root.0["refine"] = json!("ADD");
    root.0["transform"] = json!(frame.transform());
    let root_error = root.0["geometricError"].as_f64().unwrap_or(0.0);
    let tileset = json!({
        "asset": { "version": "1.1", "generator": crate::GENERATOR },
        "geometricError": (2.0 * root_error).max(diagonal(root.1) / 4.0).max(1.0),
        "root": root.0,
    });
    let triangles = tiles.iter().map(|t| t.triangles).sum();
    Ok(BuiltTileset { tileset, contents, tiles, skipped, frame, triangles })
}

/// The ENU frame at the centre of the box of every usable coordinate, on the ellipsoid.
fn origin(footprints: &[Footprint], terrain: Option<&Terrain>) -> Option<EnuFrame> {
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    let mut extend = |p: [f64; 2]| {
        if p.iter().all(|c| c.is_finite()) && p[1].abs() <= 90.0 {
            for k in 0..2 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
    };
    for p in footprints.iter().flat_map(|f| f.polygon.iter().flatten()) {
        extend(*p);
    }
    if let Some(t) = terrain {
        extend([t.bounds[0], t.bounds[1]]);
        extend([t.bounds[2], t.bounds[3]]);
    }
    (lo[0] <= hi[0]).then(|| EnuFrame::new((lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0, 0.0))
}
