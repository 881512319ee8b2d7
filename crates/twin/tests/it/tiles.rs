use crate::{parse_glb, rect, scatter, Glb};
use meridian_twin::{build_tileset, geodetic_to_ecef, Terrain, TilesetOptions, TERRAIN_URI};
use serde_json::{json, Value};
use std::collections::BTreeMap;

fn opts(max: usize) -> TilesetOptions {
    TilesetOptions { max_features_per_tile: max, ..TilesetOptions::default() }
}

#[test]
fn the_root_transform_puts_the_enu_origin_at_the_centre_on_the_ellipsoid() {
    // Centre (153.0, -27.5): the two footprints are symmetric about it.
    let fps = [
        rect("a", 152.999, -27.501, 20.0, 20.0),
        rect("b", 153.001 - 20.0 / 98_800.0, -27.499 - 20.0 / 110_800.0, 20.0, 20.0),
    ];
    let built = build_tileset(&fps, None, &opts(10)).unwrap();
    let t: Vec<f64> =
        built.tileset["root"]["transform"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert_eq!(t.len(), 16);
    // ECEF of lon 153°, lat −27.5°, h 0 (WGS84), computed by hand:
    // N = a / sqrt(1 − e² sin²φ); X = N cosφ cosλ, Y = N cosφ sinλ, Z = N(1 − e²) sinφ.
    let expected = [-5_044_449.883_306_466, 2_570_275.594_243_846_4, -2_927_470.289_091_698];
    for k in 0..3 {
        assert!((t[12 + k] - expected[k]).abs() < 1e-3, "{t:?}");
    }
    assert_eq!(t[15], 1.0);
    // East is horizontal, up is the ellipsoid normal.
    assert!(t[2].abs() < 1e-12);
    let up = [t[8], t[9], t[10]];
    let (l, p) = (153f64.to_radians(), (-27.5f64).to_radians());
    let normal = [p.cos() * l.cos(), p.cos() * l.sin(), p.sin()];
    assert!((0..3).all(|k| (up[k] - normal[k]).abs() < 1e-12));

    // A corner of a footprint, through the GLB (y-up, node translation) and the transform, lands
    // on the ECEF of its longitude, latitude and height.
    let glb = parse_glb(&built.contents[0].1);
    let positions = glb.enu_positions();
    let corner = fps[0].polygon[0][0];
    let want = geodetic_to_ecef(corner[0], corner[1], fps[0].base + fps[0].height);
    let best = positions
        .iter()
        .map(|e| {
            let ecef = [0, 1, 2].map(|r| t[r] * e[0] + t[4 + r] * e[1] + t[8 + r] * e[2] + t[12 + r]);
            (0..3).map(|k| (ecef[k] - want[k]).powi(2)).sum::<f64>().sqrt()
        })
        .fold(f64::INFINITY, f64::min);
    assert!(best < 0.01, "nearest vertex {best} m from the corner");
}

fn boxes_contain(outer: &Value, inner_min: [f64; 3], inner_max: [f64; 3]) -> bool {
    let b: Vec<f64> = outer["box"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    // Axis-aligned boxes only.
    assert_eq!([b[4], b[5], b[6], b[8], b[9], b[10]], [0.0; 6]);
    let (c, h) = ([b[0], b[1], b[2]], [b[3], b[7], b[11]]);
    (0..3).all(|k| inner_min[k] >= c[k] - h[k] - 1e-9 && inner_max[k] <= c[k] + h[k] + 1e-9)
}

fn box_extent(v: &Value) -> ([f64; 3], [f64; 3]) {
    let b: Vec<f64> = v["box"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    ([b[0] - b[3], b[1] - b[7], b[2] - b[11]], [b[0] + b[3], b[1] + b[7], b[2] + b[11]])
}

/// Walks the tile tree: parents contain children, errors decrease, content lies in its box.
fn walk(tile: &Value, parent_error: f64, contents: &BTreeMap<String, Glb>, seen: &mut Vec<String>) {
    let error = tile["geometricError"].as_f64().unwrap();
    assert!(error < parent_error, "geometric error {error} not below its parent's {parent_error}");
    if let Some(uri) = tile["content"]["uri"].as_str() {
        assert!(uri.ends_with(".glb"));
        let glb = &contents[uri];
        let p = glb.enu_positions();
        let lo = [0, 1, 2].map(|k| p.iter().map(|v| v[k]).fold(f64::INFINITY, f64::min));
        let hi = [0, 1, 2].map(|k| p.iter().map(|v| v[k]).fold(f64::NEG_INFINITY, f64::max));
        assert!(boxes_contain(&tile["boundingVolume"], lo, hi), "{uri}: content outside its box");
        seen.push(uri.to_owned());
    } else {
        assert!(tile["children"].as_array().is_some_and(|c| !c.is_empty()), "a tile without content or children");
    }
    for child in tile["children"].as_array().into_iter().flatten() {
        let (lo, hi) = box_extent(&child["boundingVolume"]);
        assert!(boxes_contain(&tile["boundingVolume"], lo, hi), "child box outside its parent's");
        walk(child, error, contents, seen);
    }
}

#[test]
fn the_quadtree_puts_every_footprint_in_one_leaf_and_boxes_contain_their_content() {
    let fps = scatter(1500, 7);
    let built = build_tileset(&fps, None, &opts(40)).unwrap();
    assert!(built.skipped.is_empty());
    assert_eq!(built.tileset["asset"]["version"], "1.1");
    assert_eq!(built.tileset["root"]["refine"], "ADD");
    let mut count = vec![0usize; fps.len()];
    for t in &built.tiles {
        assert!(t.features.len() <= 40 && !t.features.is_empty(), "{}: {}", t.uri, t.features.len());
        for &i in &t.features {
            count[i] += 1;
        }
    }
    assert!(count.iter().all(|&c| c == 1), "every footprint in exactly one leaf");
    assert!(built.tiles.iter().any(|t| t.depth >= 2));
    let contents: BTreeMap<String, Glb> = built.contents.iter().map(|(u, b)| (u.clone(), parse_glb(b))).collect();
    assert_eq!(contents.len(), built.contents.len(), "uris are unique");
    let mut seen = Vec::new();
    let top = built.tileset["geometricError"].as_f64().unwrap();
    walk(&built.tileset["root"], top + 1e-9, &contents, &mut seen);
    let listed: Vec<String> = built.contents.iter().map(|c| c.0.clone()).collect();
    assert_eq!(seen, listed, "every content is referenced once, in order");
    // Feature counts agree with the tile summaries.
    for t in &built.tiles {
        let g = &contents[&t.uri];
        let ids = &g.primitive()["extensions"]["EXT_mesh_features"]["featureIds"][0];
        assert_eq!(ids["featureCount"].as_u64().unwrap() as usize, t.features.len());
        assert_eq!(ids["attribute"], 0);
    }
}

#[test]
fn glb_accessors_are_consistent() {
    let built = build_tileset(&scatter(300, 1), None, &opts(100)).unwrap();
    for (uri, bytes) in &built.contents {
        let g = parse_glb(bytes);
        assert_eq!(g.json["asset"]["version"], "2.0");
        let used: Vec<&str> =
            g.json["extensionsUsed"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        assert_eq!(used, ["EXT_mesh_features", "EXT_structural_metadata"]);
        for v in g.json["bufferViews"].as_array().unwrap() {
            assert_eq!(v["byteOffset"].as_u64().unwrap() % 8, 0, "{uri}: views are 8-byte aligned");
        }
        let prim = g.primitive();
        let pos_acc = prim["attributes"]["POSITION"].as_u64().unwrap();
        let pos = g.accessor(pos_acc);
        let a = &g.json["accessors"][pos_acc as usize];
        for k in 0..3 {
            let lo = pos.iter().skip(k).step_by(3).copied().fold(f64::INFINITY, f64::min);
            let hi = pos.iter().skip(k).step_by(3).copied().fold(f64::NEG_INFINITY, f64::max);
            // serde_json's default parser may be off by an ulp of f64; compare as f32.
            assert_eq!(a["min"][k].as_f64().unwrap() as f32, lo as f32);
            assert_eq!(a["max"][k].as_f64().unwrap() as f32, hi as f32);
        }
        let normals = g.accessor(prim["attributes"]["NORMAL"].as_u64().unwrap());
        for n in normals.chunks_exact(3) {
            assert!(((n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt() - 1.0).abs() < 1e-5);
        }
        let ids = g.accessor(prim["attributes"]["_FEATURE_ID_0"].as_u64().unwrap());
        assert_eq!(ids.len() * 3, pos.len());
        let indices = g.accessor(prim["indices"].as_u64().unwrap());
        assert_eq!(indices.len() % 3, 0);
        assert!(indices.iter().all(|&i| (i as usize) < ids.len()));
        // Roofs face up: in y-up glTF, a roof normal is (0, 1, 0).
        assert!(normals.chunks_exact(3).any(|n| n[1] > 0.999));
    }
}

/// Decodes a property table column.
fn column(g: &Glb, table: &Value, schema: &Value, name: &str) -> Vec<Value> {
    let count = table["count"].as_u64().unwrap() as usize;
    let prop = &table["properties"][name];
    let def = &schema["classes"]["parcel"]["properties"][name];
    if prop.is_null() {
        // Left out of the table: every value is the property's default.
        assert_ne!(def["required"], true, "{name} is required but not in the table");
        assert!(!def["default"].is_null(), "{name} is left out and has no default");
        return vec![def["default"].clone(); count];
    }
    let values = g.view(prop["values"].as_u64().unwrap());
    match (def["type"].as_str().unwrap(), def["componentType"].as_str()) {
        ("STRING", _) => {
            assert_eq!(prop["stringOffsetType"], "UINT32");
            let offsets: Vec<usize> = g
                .view(prop["stringOffsets"].as_u64().unwrap())
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()) as usize)
                .collect();
            assert_eq!(offsets.len(), count + 1);
            (0..count).map(|i| json!(std::str::from_utf8(&values[offsets[i]..offsets[i + 1]]).unwrap())).collect()
        }
        ("SCALAR", Some("FLOAT64")) => {
            assert_eq!(values.len(), count * 8);
            values.chunks_exact(8).map(|c| json!(f64::from_le_bytes(c.try_into().unwrap()))).collect()
        }
        ("SCALAR", Some("FLOAT32")) => {
            assert_eq!(values.len(), count * 4);
            values.chunks_exact(4).map(|c| json!(f64::from(f32::from_le_bytes(c.try_into().unwrap())))).collect()
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn property_tables_round_trip() {
    let mut fps = scatter(120, 3);
    for (i, fp) in fps.iter_mut().enumerate() {
        if i % 2 == 0 {
            fp.properties.insert("area".into(), json!(1000.0 + i as f64));
        }
        fp.properties.insert("storeys".into(), json!(i % 5));
        if i % 3 == 0 {
            fp.properties.insert("Zone Code".into(), json!(format!("Z{i} — mixed use")));
        } else if i % 3 == 1 {
            fp.properties.insert("Zone Code".into(), json!(true));
        }
        if i == 5 {
            fp.properties.remove("tenure");
        }
    }
    let built = build_tileset(&fps, None, &opts(25)).unwrap();
    let mut checked = 0;
    for (t, (_, bytes)) in built.tiles.iter().zip(&built.contents) {
        let g = parse_glb(bytes);
        let md = &g.json["extensions"]["EXT_structural_metadata"];
        let schema = &md["schema"];
        assert_eq!(schema["id"], "meridian_twin");
        let props = &schema["classes"]["parcel"]["properties"];
        assert_eq!(props["id"]["type"], "STRING");
        assert_eq!(props["area"]["componentType"], "FLOAT64");
        assert_eq!(props["height"]["componentType"], "FLOAT32");
        assert_eq!(props["storeys"]["componentType"], "FLOAT64");
        assert_eq!(props["Zone_Code"]["type"], "STRING");
        assert_eq!(props["Zone_Code"]["name"], "Zone Code");
        let table = &md["propertyTables"][0];
        assert_eq!(table["class"], "parcel");
        assert_eq!(table["count"].as_u64().unwrap() as usize, t.features.len());
        let ids = column(&g, table, schema, "id");
        let lots = column(&g, table, schema, "lot");
        let tenure = column(&g, table, schema, "tenure");
        let area = column(&g, table, schema, "area");
        let height = column(&g, table, schema, "height");
        let storeys = column(&g, table, schema, "storeys");
        let zone = column(&g, table, schema, "Zone_Code");
        // Feature IDs index the table: every vertex's ID is below the count.
        let fid = g.accessor(g.primitive()["attributes"]["_FEATURE_ID_0"].as_u64().unwrap());
        assert!(fid.iter().all(|&f| f.fract() == 0.0 && (f as usize) < t.features.len()));
        for (k, &i) in t.features.iter().enumerate() {
            let fp = &fps[i];
            assert_eq!(ids[k], json!(fp.id));
            assert_eq!(lots[k], fp.properties["lot"]);
            assert_eq!(tenure[k], if i == 5 { json!("") } else { json!("Freehold") });
            assert_eq!(height[k].as_f64().unwrap(), f64::from(fp.height as f32));
            assert_eq!(storeys[k].as_f64().unwrap(), (i % 5) as f64);
            let z = match i % 3 {
                0 => json!(format!("Z{i} — mixed use")),
                1 => json!("true"),
                _ => json!(""),
            };
            assert_eq!(zone[k], z);
            let a = area[k].as_f64().unwrap();
            if i % 2 == 0 {
                assert_eq!(a, 1000.0 + i as f64);
            } else {
                // The planar area of the footprint (less its courtyard) in m².
                assert!(a > 30.0 && a < 900.0, "{a}");
            }
            checked += 1;
        }
    }
    assert_eq!(checked, fps.len());
}

#[test]
fn a_tile_whose_strings_are_all_empty_leaves_the_property_out() {
    // Eight stacked lots (one centroid) make two parts of four, in input order: the first four
    // have no `tenure` and empty ids, the others have both.
    let mut fps = vec![scatter(1, 12)[0].clone(); 8];
    for (i, fp) in fps.iter_mut().enumerate() {
        if i < 4 {
            fp.properties.remove("tenure");
            fp.id = String::new();
        } else {
            fp.id = format!("s{i}");
        }
    }
    let built = build_tileset(&fps, None, &opts(4)).unwrap();
    let (mut without, mut with) = (0, 0);
    for (t, (_, bytes)) in built.tiles.iter().zip(&built.contents) {
        let g = parse_glb(bytes);
        let md = &g.json["extensions"]["EXT_structural_metadata"];
        let (schema, table) = (&md["schema"], &md["propertyTables"][0]);
        for name in ["id", "tenure"] {
            assert_eq!(schema["classes"]["parcel"]["properties"][name]["default"], "");
        }
        let (ids, tenure) = (column(&g, table, schema, "id"), column(&g, table, schema, "tenure"));
        for (k, &i) in t.features.iter().enumerate() {
            assert_eq!(ids[k], json!(fps[i].id));
            assert_eq!(tenure[k], if i < 4 { json!("") } else { json!("Freehold") });
        }
        if t.features.iter().all(|&i| i < 4) {
            assert!(table["properties"]["tenure"].is_null() && table["properties"]["id"].is_null());
            assert!(!table["properties"]["lot"].is_null());
            without += 1;
        } else {
            with += 1;
        }
        // No buffer view is empty.
        for v in g.json["bufferViews"].as_array().unwrap() {
            assert!(v["byteLength"].as_u64().unwrap() > 0);
        }
    }
    assert!(without >= 1 && with >= 1, "{without} tiles without, {with} with");
}

#[test]
fn terrain_is_the_root_content_with_the_buildings_below_it() {
    let (w, h) = (40, 30);
    let mut heights: Vec<f32> = (0..w * h).map(|i| 10.0 + (i % w) as f32 * 0.1 + (i / w) as f32 * 0.05).collect();
    heights[5 * w + 5] = f32::NAN;
    let terrain = Terrain { width: w, height: h, bounds: [152.99, -27.51, 153.03, -27.48], heights };
    let fps = scatter(200, 9);
    let o = TilesetOptions { terrain_max_side: 16, ..opts(60) };
    let built = build_tileset(&fps, Some(&terrain), &o).unwrap();
    let root = &built.tileset["root"];
    assert_eq!(root["content"]["uri"], TERRAIN_URI);
    assert_eq!(built.contents[0].0, TERRAIN_URI);
    assert_eq!(root["children"].as_array().unwrap().len(), 1);
    let g = parse_glb(&built.contents[0].1);
    assert!(g.json.get("extensionsUsed").is_none());
    let p = g.enu_positions();
    assert!(p.len() <= 16 * 16 && p.len() > 200);
    let normals = g.accessor(g.primitive()["attributes"]["NORMAL"].as_u64().unwrap());
    assert!(normals.chunks_exact(3).all(|n| n[1] > 0.9), "terrain normals point up (y in glTF)");
    // Triangles face up too: their winding agrees with the normals.
    let idx = g.accessor(g.primitive()["indices"].as_u64().unwrap());
    for t in idx.chunks_exact(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| p[i as usize]);
        let z = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        assert!(z > 0.0);
    }
    let contents: BTreeMap<String, Glb> = built.contents.iter().map(|(u, b)| (u.clone(), parse_glb(b))).collect();
    let mut seen = Vec::new();
    walk(root, built.tileset["geometricError"].as_f64().unwrap() + 1e-9, &contents, &mut seen);
    assert_eq!(seen.len(), built.contents.len());
}

#[test]
fn the_output_is_deterministic() {
    let fps = scatter(400, 11);
    let a = build_tileset(&fps, None, &opts(30)).unwrap();
    let b = build_tileset(&fps, None, &opts(30)).unwrap();
    assert_eq!(a.tileset, b.tileset);
    assert_eq!(a.contents, b.contents);
}
