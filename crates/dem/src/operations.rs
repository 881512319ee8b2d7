//! The operations a job runs, parsed from a request's `params.operations` with a JSON pointer for
//! every mistake: an unknown `type`, an unknown option, a value of the wrong type or out of range.
//! Options are the engine's own (named and defaulted like `gdaldem`'s); contours add `format`.

use meridian_core::FieldError;
use meridian_raster::dem::{
    AspectOptions, ColorReliefOptions, ContourOptions, EdgeOptions, HillshadeOptions, Operation, SlopeOptions,
    TriOptions,
};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Every operation `type`, in the order the docs list them.
pub const OPERATION_TYPES: &[&str] =
    &["hillshade", "slope", "aspect", "color-relief", "contours", "roughness", "tri", "tpi"];

/// How contour lines are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContourFormat {
    /// A GeoJSON FeatureCollection of LineStrings in the DEM's CRS.
    #[default]
    Geojson,
    /// FlatGeobuf LineStrings with a spatial index, in the DEM's CRS.
    Flatgeobuf,
}

/// Contour options: `gdal_contour`'s interval (`-i`), base (`-off`) and attribute name (`-a`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ContourSpec {
    pub interval: f64,
    pub base: f64,
    pub attribute: String,
    pub format: ContourFormat,
}

impl Default for ContourSpec {
    fn default() -> Self {
        let o = ContourOptions::default();
        Self { interval: o.interval, base: o.base, attribute: o.attribute, format: ContourFormat::Geojson }
    }
}

impl ContourSpec {
    /// The engine's options.
    pub fn options(&self) -> ContourOptions {
        ContourOptions { interval: self.interval, base: self.base, attribute: self.attribute.clone(), max_levels: None }
    }
}

/// One operation of a job.
#[derive(Clone, Debug, PartialEq)]
pub enum DemOperation {
    /// A raster operation of the engine (hillshade, slope, aspect, color relief, TRI, TPI, roughness).
    Raster(Operation),
    /// Contour lines.
    Contours(ContourSpec),
}

impl DemOperation {
    /// The operation's `type`, which also names its output and its tile layer.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Raster(op) => op.name(),
            Self::Contours(_) => "contours",
        }
    }

    /// The operation with every option spelt out (defaults included), as stored with the job.
    pub fn to_json(&self) -> Value {
        let mut v = match self {
            Self::Raster(op) => serde_json::to_value(op).unwrap_or(Value::Null),
            Self::Contours(spec) => serde_json::to_value(spec).unwrap_or(Value::Null),
        };
        if let Value::Object(map) = &mut v {
            map.insert("type".into(), Value::String(self.name().to_owned()));
        }
        v
    }

    /// The file name of the operation's output.
    pub fn output_name(&self) -> String {
        match self {
            Self::Raster(op) => format!("{}.tif", op.name()),
            Self::Contours(spec) => match spec.format {
                ContourFormat::Geojson => "contours.geojson".to_owned(),
                ContourFormat::Flatgeobuf => "contours.fgb".to_owned(),
            },
        }
    }
}

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// A serde error of an option struct as a field error under `base`.
fn option_error(base: &str, e: serde_path_to_error::Error<serde_json::Error>) -> FieldError {
    let mut at = String::from(base);
    for seg in e.path().iter() {
        use serde_path_to_error::Segment;
        at.push('/');
        match seg {
            Segment::Seq { index } => at.push_str(&index.to_string()),
            Segment::Map { key } | Segment::Enum { variant: key } => at.push_str(&escape(key)),
            Segment::Unknown => at.push('?'),
        }
    }
    let detail = e.inner().to_string();
    let detail = detail.split(" at line ").next().unwrap_or(&detail).to_owned();
    if detail.starts_with("unknown field") {
        // Depending on the deserializer the path stops at the parent or names the field.
        if let Some(name) = detail.split('`').nth(1) {
            let tail = format!("/{}", escape(name));
            if !at.ends_with(&tail) {
                at.push_str(&tail);
            }
        }
        return FieldError::new(at, "unknown_option", detail);
    }
    FieldError::new(at, "invalid_option", detail)
}

/// An engine validation message ("azimuth must be between 0 and 360", "stops[2].color must ...")
/// as a field error: the pointer names the option the message starts with, or the operation.
fn engine_error(base: &str, options: &Map<String, Value>, message: &str) -> FieldError {
    let message = message.strip_prefix("invalid argument: ").unwrap_or(message);
    let head = message.split_whitespace().next().unwrap_or("");
    // `stops[2].color` → `/stops/2/color`.
    let mut path = String::new();
    let mut name = String::new();
    for part in head.split('.') {
        let (field, index) = match part.split_once('[') {
            Some((f, rest)) => (f, rest.strip_suffix(']')),
            None => (part, None),
        };
        if name.is_empty() {
            name = field.to_owned();
        }
        path.push('/');
        path.push_str(&escape(field));
        if let Some(i) = index {
            path.push('/');
            path.push_str(i);
        }
    }
    let known = !name.is_empty() && (options.contains_key(&name) || DEFAULTED.contains(&name.as_str()));
    let at = if known { format!("{base}{path}") } else { base.to_owned() };
    FieldError::new(at, "invalid_option", message)
}

/// Options that may be named in engine messages though the request left them to their defaults.
const DEFAULTED: &[&str] = &["azimuth", "altitude", "z_factor", "scale", "interval", "base", "attribute"];

fn typed<T: DeserializeOwned>(base: &str, options: &Map<String, Value>) -> Result<T, FieldError> {
    serde_path_to_error::deserialize(Value::Object(options.clone())).map_err(|e| option_error(base, e))
}

/// Parses one operation at JSON pointer `base`.
pub fn parse_operation(base: &str, value: &Value) -> Result<DemOperation, FieldError> {
    let Value::Object(map) = value else {
        return Err(FieldError::new(base, "invalid_type", "an operation is an object with a `type` and its options"));
    };
    let ty = match map.get("type") {
        None => return Err(FieldError::new(format!("{base}/type"), "required", "the operation needs a `type`")),
        Some(Value::String(s)) => s.as_str(),
        Some(_) => return Err(FieldError::new(format!("{base}/type"), "invalid_type", "`type` must be a string")),
    };
    let mut options = map.clone();
    options.remove("type");
    let op = match ty {
        "hillshade" => Operation::Hillshade(typed::<HillshadeOptions>(base, &options)?),
        "slope" => Operation::Slope(typed::<SlopeOptions>(base, &options)?),
        "aspect" => Operation::Aspect(typed::<AspectOptions>(base, &options)?),
        "color-relief" => Operation::ColorRelief(typed::<ColorReliefOptions>(base, &options)?),
        "tri" => Operation::Tri(typed::<TriOptions>(base, &options)?),
        "tpi" => Operation::Tpi(typed::<EdgeOptions>(base, &options)?),
        "roughness" => Operation::Roughness(typed::<EdgeOptions>(base, &options)?),
        "contours" => {
            let spec = typed::<ContourSpec>(base, &options)?;
            spec.options().validate().map_err(|e| engine_error(base, &options, &e.to_string()))?;
            return Ok(DemOperation::Contours(spec));
        }
        other => {
            return Err(FieldError::new(
                format!("{base}/type"),
                "unknown_operation",
                format!("unknown operation `{other}`; operations are {}", OPERATION_TYPES.join(", ")),
            ))
        }
    };
    op.validate().map_err(|e| engine_error(base, &options, &e.to_string()))?;
    Ok(DemOperation::Raster(op))
}

/// Parses `params` (`{"operations": [...]}`) found at JSON pointer `base`; every problem found is
/// reported, each with its pointer.
pub fn parse_params(base: &str, params: &Value, max_operations: usize) -> Result<Vec<DemOperation>, Vec<FieldError>> {
    let Value::Object(map) = params else {
        return Err(vec![FieldError::new(base, "invalid_type", "params must be an object with `operations`")]);
    };
    let mut errors = Vec::new();
    for key in map.keys().filter(|k| *k != "operations") {
        errors.push(FieldError::new(
            format!("{base}/{}", escape(key)),
            "unknown_field",
            format!("unknown field `{key}`; params has `operations`"),
        ));
    }
    let list = match map.get("operations") {
        Some(Value::Array(list)) => list,
        Some(_) => {
            errors.push(FieldError::new(format!("{base}/operations"), "invalid_type", "operations must be a list"));
            return Err(errors);
        }
        None => {
            errors.push(FieldError::new(format!("{base}/operations"), "required", "params needs `operations`"));
            return Err(errors);
        }
    };
    if list.is_empty() {
        errors.push(FieldError::new(format!("{base}/operations"), "required", "give at least one operation"));
    }
    if list.len() > max_operations {
        errors.push(FieldError::new(
            format!("{base}/operations"),
            "too_many",
            format!("a job runs at most {max_operations} operations"),
        ));
    }
    let mut ops: Vec<DemOperation> = Vec::new();
    for (i, value) in list.iter().enumerate() {
        let at = format!("{base}/operations/{i}");
        match parse_operation(&at, value) {
            Ok(op) => {
                if ops.iter().any(|o| o.name() == op.name()) {
                    errors.push(FieldError::new(
                        format!("{at}/type"),
                        "duplicate_operation",
                        format!("`{}` is already in the list; each operation names one output", op.name()),
                    ));
                }
                ops.push(op);
            }
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(ops)
    } else {
        Err(errors)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errors(params: Value) -> Vec<(String, String)> {
        parse_params("/params", &params, 16).unwrap_err().into_iter().map(|e| (e.pointer, e.code)).collect()
    }

    #[test]
    fn defaults_are_gdaldems_and_round_trip() {
        let ops = parse_params(
            "/params",
            &json!({"operations": [{"type": "hillshade"}, {"type": "contours", "interval": 5}, {"type": "tri"}]}),
            16,
        )
        .unwrap();
        assert_eq!(ops.len(), 3);
        let hs = ops[0].to_json();
        assert_eq!(hs["azimuth"], 315.0);
        assert_eq!(hs["altitude"], 45.0);
        assert_eq!(hs["algorithm"], "Horn");
        assert_eq!(ops[1].to_json()["attribute"], "elevation");
        assert_eq!(ops[1].output_name(), "contours.geojson");
        // What is stored parses back to the same operations.
        let stored = json!({"operations": ops.iter().map(DemOperation::to_json).collect::<Vec<_>>()});
        assert_eq!(parse_params("/params", &stored, 16).unwrap(), ops);
    }

    #[test]
    fn every_mistake_has_a_pointer() {
        assert_eq!(
            errors(json!({"operations": [{"type": "hillshade"}, {"type": "sharpen"}]})),
            vec![("/params/operations/1/type".into(), "unknown_operation".into())]
        );
        assert_eq!(
            errors(json!({"operations": [{"type": "hillshade", "azimut": 300}]})),
            vec![("/params/operations/0/azimut".into(), "unknown_option".into())]
        );
        assert_eq!(
            errors(json!({"operations": [{"type": "slope", "format": "radians"}]})),
            vec![("/params/operations/0/format".into(), "invalid_option".into())]
        );
        assert_eq!(
            errors(json!({"operations": [{"type": "hillshade", "azimuth": 400}]})),
            vec![("/params/operations/0/azimuth".into(), "invalid_option".into())]
        );
        assert_eq!(
            errors(json!({"operations": [{"type": "contours", "interval": -1}]})),
            vec![("/params/operations/0/interval".into(), "invalid_option".into())]
        );
        assert_eq!(
            errors(json!({"operations": [{"type": "color-relief", "stops": [{"value": 1, "color": [1, 2]}]}]})),
            vec![("/params/operations/0/stops/0/color".into(), "invalid_option".into())]
        );
        assert_eq!(
            errors(json!({"operations": [{"type": "color-relief"}]})),
            vec![("/params/operations/0".into(), "invalid_option".into())]
        );
        assert_eq!(
            errors(json!({"operations": [{"type": "tpi"}, {"type": "tpi"}]})),
            vec![("/params/operations/1/type".into(), "duplicate_operation".into())]
        );
        assert_eq!(errors(json!({"operations": []})), vec![("/params/operations".into(), "required".into())]);
        assert_eq!(
            errors(json!({"operation": [{"type": "tpi"}]})),
            vec![
                ("/params/operation".into(), "unknown_field".into()),
                ("/params/operations".into(), "required".into())
            ]
        );
        assert_eq!(
            errors(json!({"operations": [{"type": "contours", "format": "shapefile"}]})),
            vec![("/params/operations/0/format".into(), "invalid_option".into())]
        );
    }
}
