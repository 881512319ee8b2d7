//! The `EXT_structural_metadata` schema of parcels and the property-table columns of a tile.
//!
//! Every content of a tileset has the same schema: class `parcel` with `id`, `lot`, `plan`,
//! `tenure` (STRING), `area` (FLOAT64), `height` and `base` (FLOAT32), then one property per
//! other key found in the footprints' properties, in key order: FLOAT64 when every value given
//! is a JSON number, STRING otherwise (non-string values as their JSON text). A missing string is
//! the empty string (declared as the property's `noData` and `default`); a missing number is
//! NaN. String properties are not `required`: a tile whose strings of a property are all empty
//! leaves that property out of its table (see `glb::column_views`), and readers give the
//! `default`, `""`.

use crate::glb::Column;
use crate::mesh::Prepared;
use crate::Footprint;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// The schema's `id`.
pub const SCHEMA_ID: &str = "meridian_twin";
/// The class every footprint belongs to.
pub const CLASS: &str = "parcel";
/// Properties with a fixed meaning and type; other keys become extra properties.
const FIXED: [&str; 7] = ["id", "lot", "plan", "tenure", "area", "height", "base"];

#[derive(Clone, Debug)]
enum Source {
    Id,
    Text(String),
    Number(String),
    Area,
    Height,
    Base,
}

#[derive(Clone, Debug)]
struct Prop {
    name: String,
    source: Source,
}

/// The schema of a tileset's features and how each property is read from a footprint.
#[derive(Clone, Debug)]
pub(crate) struct Schema {
    pub(crate) json: Value,
    props: Vec<Prop>,
}

/// A schema identifier: letters, digits and underscores, not starting with a digit.
fn identifier(key: &str, taken: &mut BTreeSet<String>) -> String {
    let mut s: String = key.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    let mut name = s.clone();
    let mut n = 2;
    while taken.contains(&name) {
        name = format!("{s}_{n}");
        n += 1;
    }
    taken.insert(name.clone());
    name
}

fn text(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

impl Schema {
    /// The schema for the given (valid) footprints.
    pub(crate) fn new<'a>(footprints: impl Iterator<Item = &'a Footprint>) -> Self {
        // Key → whether every non-null value is a number.
        let mut extra: BTreeMap<&str, bool> = BTreeMap::new();
        for fp in footprints {
            for (k, v) in &fp.properties {
                if FIXED.contains(&k.as_str()) || v.is_null() {
                    continue;
                }
                let numeric = extra.entry(k.as_str()).or_insert(true);
                *numeric &= v.is_number();
            }
        }
        let mut taken: BTreeSet<String> = FIXED.iter().map(|s| (*s).to_owned()).collect();
        let mut props = vec![
            Prop { name: "id".into(), source: Source::Id },
            Prop { name: "lot".into(), source: Source::Text("lot".into()) },
            Prop { name: "plan".into(), source: Source::Text("plan".into()) },
            Prop { name: "tenure".into(), source: Source::Text("tenure".into()) },
            Prop { name: "area".into(), source: Source::Area },
            Prop { name: "height".into(), source: Source::Height },
            Prop { name: "base".into(), source: Source::Base },
        ];
        let mut class_props = Map::new();
        for k in ["id", "lot", "plan", "tenure"] {
            class_props.insert(k.into(), json!({ "type": "STRING", "noData": "", "default": "" }));
        }
        class_props.insert(
            "area".into(),
            json!({ "type": "SCALAR", "componentType": "FLOAT64", "required": true,
                    "description": "Planar area (m²): the `area` property when it is a number, else the footprint's" }),
        );
        class_props.insert(
            "height".into(),
            json!({ "type": "SCALAR", "componentType": "FLOAT32", "required": true, "description": "Extrusion (m)" }),
        );
        class_props.insert(
            "base".into(),
            json!({ "type": "SCALAR", "componentType": "FLOAT32", "required": true,
                    "description": "Ground height (m above the ellipsoid)" }),
        );
        for (key, numeric) in extra {
            let name = identifier(key, &mut taken);
            let def = if numeric {
                json!({ "name": key, "type": "SCALAR", "componentType": "FLOAT64" })
            } else {
                json!({ "name": key, "type": "STRING", "noData": "", "default": "" })
            };
            class_props.insert(name.clone(), def);
            let source = if numeric { Source::Number(key.to_owned()) } else { Source::Text(key.to_owned()) };
            props.push(Prop { name, source });
        }
        let mut classes = Map::new();
        classes.insert(CLASS.into(), json!({ "name": "Parcel", "properties": class_props }));
        let json = json!({ "id": SCHEMA_ID, "classes": classes });
        Self { json, props }
    }

    /// The property-table columns of `features`, in the schema's order.
    pub(crate) fn columns(&self, footprints: &[Footprint], features: &[&Prepared]) -> Vec<(String, Column)> {
        let fps = || features.iter().map(|p| (&footprints[p.index], *p));
        self.props
            .iter()
            .map(|prop| {
                let column = match &prop.source {
                    Source::Id => Column::String(fps().map(|(f, _)| f.id.clone()).collect()),
                    Source::Text(k) => Column::String(fps().map(|(f, _)| text(f.properties.get(k))).collect()),
                    Source::Number(k) => Column::Float64(
                        fps().map(|(f, _)| f.properties.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN)).collect(),
                    ),
                    Source::Area => Column::Float64(
                        fps()
                            .map(|(f, p)| f.properties.get("area").and_then(Value::as_f64).unwrap_or(p.area))
                            .collect(),
                    ),
                    Source::Height => Column::Float32(fps().map(|(f, _)| f.height as f32).collect()),
                    Source::Base => Column::Float32(fps().map(|(f, _)| f.base as f32).collect()),
                };
                (prop.name.clone(), column)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_become_unique_identifiers() {
        let mut taken: BTreeSet<String> = FIXED.iter().map(|s| (*s).to_owned()).collect();
        assert_eq!(identifier("Lot Number", &mut taken), "Lot_Number");
        assert_eq!(identifier("Lot-Number", &mut taken), "Lot_Number_2");
        assert_eq!(identifier("2nd", &mut taken), "_2nd");
        assert_eq!(identifier("", &mut taken), "_");
    }
}
