//! glTF 2.0 binary (GLB) content: one node, one mesh, one triangle primitive, with the
//! `EXT_mesh_features` feature IDs and the `EXT_structural_metadata` property table of its
//! features when it has any.

use crate::frame::enu_to_gltf;
use crate::mesh::Mesh;
use serde_json::{json, Map, Value};

const GLB_MAGIC: u32 = 0x4654_6C67; // "glTF"
const CHUNK_JSON: u32 = 0x4E4F_534A; // "JSON"
const CHUNK_BIN: u32 = 0x004E_4942; // "BIN\0"
const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;
const FLOAT: u32 = 5126;
const UNSIGNED_SHORT: u32 = 5123;
const UNSIGNED_INT: u32 = 5125;

/// Assembles a GLB: the 12-byte header, the JSON chunk padded with spaces and the BIN chunk
/// padded with zeros, each to a multiple of four bytes. `None` when it would not fit the 32-bit
/// length fields.
pub(crate) fn glb_bytes(json: &Value, bin: &[u8]) -> Option<Vec<u8>> {
    let mut text = serde_json::to_vec(json).unwrap_or_default();
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let bin_len = bin.len().next_multiple_of(4);
    let total = 12 + 8 + text.len() + if bin.is_empty() { 0 } else { 8 + bin_len };
    if u32::try_from(total).is_err() {
        return None;
    }
    let mut out = Vec::with_capacity(total);
    out.extend(GLB_MAGIC.to_le_bytes());
    out.extend(2u32.to_le_bytes());
    out.extend((total as u32).to_le_bytes());
    out.extend((text.len() as u32).to_le_bytes());
    out.extend(CHUNK_JSON.to_le_bytes());
    out.extend(text);
    if !bin.is_empty() {
        out.extend((bin_len as u32).to_le_bytes());
        out.extend(CHUNK_BIN.to_le_bytes());
        out.extend(bin);
        out.resize(total, 0);
    }
    Some(out)
}

/// The binary buffer and its buffer views. Views start at multiples of 8 bytes, as
/// `EXT_structural_metadata` asks of property-table views (and as any component type needs).
#[derive(Default)]
struct Bin {
    data: Vec<u8>,
    views: Vec<Value>,
}

impl Bin {
    fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        self.data.resize(self.data.len().next_multiple_of(8), 0);
        let mut v = json!({ "buffer": 0, "byteOffset": self.data.len(), "byteLength": bytes.len() });
        if let Some(t) = target {
            v["target"] = json!(t);
        }
        self.data.extend_from_slice(bytes);
        self.views.push(v);
        self.views.len() - 1
    }
}

/// One column of a property table.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Column {
    String(Vec<String>),
    Float64(Vec<f64>),
    Float32(Vec<f32>),
}

/// The features of a content: the schema (the same in every content of a tileset) and one
/// column per class property, in the schema's order.
pub(crate) struct Metadata<'a> {
    pub(crate) schema: &'a Value,
    pub(crate) class: &'a str,
    pub(crate) count: usize,
    pub(crate) columns: Vec<(String, Column)>,
}

/// Writes `mesh` as a GLB whose node is translated to `centre` (ENU), positions being relative to
/// it. Everything is converted to glTF's y-up axes: ENU (x, y, z) is stored as (x, z, −y).
/// `None` when the GLB would be larger than 4 GiB.
pub(crate) fn write_glb(
    mesh: &Mesh,
    centre: [f64; 3],
    metadata: Option<&Metadata<'_>>,
    color: [f32; 4],
) -> Option<Vec<u8>> {
    let mut bin = Bin::default();
    let n = mesh.positions.len();
    let mut pos = Vec::with_capacity(n * 12);
    let (mut min, mut max) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
    for p in &mesh.positions {
        let g = enu_to_gltf([p[0] - centre[0], p[1] - centre[1], p[2] - centre[2]]);
        for k in 0..3 {
            let v = g[k] as f32;
            min[k] = min[k].min(v);
            max[k] = max[k].max(v);
            pos.extend(v.to_le_bytes());
        }
    }
    let mut nrm = Vec::with_capacity(n * 12);
    for v in &mesh.normals {
        let g = enu_to_gltf(*v).map(|c| c as f32);
        let len = (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]).sqrt();
        for c in g {
            nrm.extend((c / len).to_le_bytes());
        }
    }
    let pos_view = bin.view(&pos, Some(ARRAY_BUFFER));
    let nrm_view = bin.view(&nrm, Some(ARRAY_BUFFER));
    let mut accessors = vec![
        json!({ "bufferView": pos_view, "componentType": FLOAT, "count": n, "type": "VEC3",
                "min": min.map(f64::from), "max": max.map(f64::from) }),
        json!({ "bufferView": nrm_view, "componentType": FLOAT, "count": n, "type": "VEC3" }),
    ];
    let mut attributes = json!({ "POSITION": 0, "NORMAL": 1 });
    if metadata.is_some() {
        // Float feature IDs: exact up to 2^24, and 4-byte elements as vertex attributes need.
        let ids: Vec<u8> = mesh.features.iter().flat_map(|&f| (f as f32).to_le_bytes()).collect();
        let view = bin.view(&ids, Some(ARRAY_BUFFER));
        accessors.push(json!({ "bufferView": view, "componentType": FLOAT, "count": n, "type": "SCALAR" }));
        attributes["_FEATURE_ID_0"] = json!(accessors.len() - 1);
    }
    // 65535 is the primitive-restart value of 16-bit indices, so it may not be used.
    let (indices, component) = if n < 65535 {
        (mesh.indices.iter().flat_map(|&i| (i as u16).to_le_bytes()).collect::<Vec<u8>>(), UNSIGNED_SHORT)
    } else {
        (mesh.indices.iter().flat_map(|&i| i.to_le_bytes()).collect(), UNSIGNED_INT)
    };
    let idx_view = bin.view(&indices, Some(ELEMENT_ARRAY_BUFFER));
    accessors.push(json!({ "bufferView": idx_view, "componentType": component,
                           "count": mesh.indices.len(), "type": "SCALAR" }));
    let mut primitive = json!({ "attributes": attributes, "indices": accessors.len() - 1, "material": 0, "mode": 4 });
    let mut root = Map::new();
    root.insert("asset".into(), json!({ "version": "2.0", "generator": crate::GENERATOR }));
    if let Some(md) = metadata {
        primitive["extensions"] = json!({ "EXT_mesh_features": { "featureIds": [
            { "featureCount": md.count, "attribute": 0, "propertyTable": 0 }
        ] } });
        let mut props = Map::new();
        for (name, column) in &md.columns {
            if let Some(views) = column_views(&mut bin, column) {
                props.insert(name.clone(), views);
            }
        }
        root.insert("extensionsUsed".into(), json!(["EXT_mesh_features", "EXT_structural_metadata"]));
        root.insert(
            "extensions".into(),
            json!({ "EXT_structural_metadata": {
                "schema": md.schema,
                "propertyTables": [{ "class": md.class, "count": md.count, "properties": props }],
            } }),
        );
    }
    let translation = enu_to_gltf(centre);
    root.insert("scene".into(), json!(0));
    root.insert("scenes".into(), json!([{ "nodes": [0] }]));
    root.insert("nodes".into(), json!([{ "mesh": 0, "translation": translation }]));
    root.insert("meshes".into(), json!([{ "primitives": [primitive] }]));
    root.insert(
        "materials".into(),
        json!([{ "pbrMetallicRoughness": { "baseColorFactor": color.map(f64::from),
                 "metallicFactor": 0.0, "roughnessFactor": 1.0 } }]),
    );
    bin.data.resize(bin.data.len().next_multiple_of(8), 0);
    root.insert("buffers".into(), json!([{ "byteLength": bin.data.len() }]));
    root.insert("bufferViews".into(), Value::Array(std::mem::take(&mut bin.views)));
    root.insert("accessors".into(), Value::Array(accessors));
    glb_bytes(&Value::Object(root), &bin.data)
}

/// The buffer views of one property-table column: strings as UTF-8 bytes with `count + 1`
/// UINT32 offsets, numbers little-endian.
///
/// `None` for a string column whose strings are all empty: its values would take 0 bytes, a
/// buffer view cannot be empty (glTF), and one padded to a byte contradicts the last string
/// offset (EXT_structural_metadata wants them equal). The column is left out of the table
/// instead; the schema declares `""` as the `default` of every string property, which is what
/// a reader returns for a property a table omits.
fn column_views(bin: &mut Bin, column: &Column) -> Option<Value> {
    Some(match column {
        Column::String(values) => {
            let mut bytes = Vec::new();
            let mut offsets = Vec::with_capacity((values.len() + 1) * 4);
            offsets.extend(0u32.to_le_bytes());
            for v in values {
                bytes.extend(v.as_bytes());
                offsets.extend((bytes.len() as u32).to_le_bytes());
            }
            if bytes.is_empty() {
                return None;
            }
            let values = bin.view(&bytes, None);
            let offsets = bin.view(&offsets, None);
            json!({ "values": values, "stringOffsets": offsets, "stringOffsetType": "UINT32" })
        }
        Column::Float64(values) => {
            let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            json!({ "values": bin.view(&bytes, None) })
        }
        Column::Float32(values) => {
            let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            json!({ "values": bin.view(&bytes, None) })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_padded_to_four_bytes() {
        let glb = glb_bytes(&json!({ "a": 1 }), &[1, 2, 3, 4, 5]).unwrap_or_default();
        let u32_at = |o: usize| u32::from_le_bytes([glb[o], glb[o + 1], glb[o + 2], glb[o + 3]]) as usize;
        assert_eq!(u32_at(8), glb.len());
        let json_len = u32_at(12);
        assert_eq!(json_len % 4, 0);
        assert_eq!(&glb[20..20 + json_len], b"{\"a\":1} ");
        let bin_at = 20 + json_len;
        assert_eq!(u32_at(bin_at), 8);
        assert_eq!(&glb[bin_at + 8..], &[1, 2, 3, 4, 5, 0, 0, 0]);
    }
}
