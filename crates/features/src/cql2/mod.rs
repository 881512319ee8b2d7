//! CQL2 filters (OGC 21-065): the cql2-text and cql2-json encodings of Basic CQL2, advanced
//! comparison operators (LIKE, BETWEEN, IN) and the spatial functions, parsed into one tree and
//! evaluated against features with SQL's three-valued logic (a comparison with a missing
//! property is unknown, and only true selects a feature).

mod json;
mod text;

use geo::{Geometry, Relate};
use serde_json::{Map, Value};

pub use json::parse_json;
pub use text::parse_text;

/// A filter that could not be parsed or refers to something unknown.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct Cql2Error(pub String);

/// Comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// Spatial relations (DE-9IM based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpatialOp {
    Intersects,
    Disjoint,
    Contains,
    Within,
    Equals,
    Touches,
    Crosses,
    Overlaps,
}

impl SpatialOp {
    fn from_name(name: &str) -> Option<Self> {
        Some(match name.to_ascii_lowercase().as_str() {
            "s_intersects" => SpatialOp::Intersects,
            "s_disjoint" => SpatialOp::Disjoint,
            "s_contains" => SpatialOp::Contains,
            "s_within" => SpatialOp::Within,
            "s_equals" => SpatialOp::Equals,
            "s_touches" => SpatialOp::Touches,
            "s_crosses" => SpatialOp::Crosses,
            "s_overlaps" => SpatialOp::Overlaps,
            _ => return None,
        })
    }
}

/// A value in a filter.
#[derive(Debug, Clone)]
pub enum Operand {
    Property(String),
    Str(String),
    Num(f64),
    Bool(bool),
    /// Milliseconds since the epoch (TIMESTAMP and DATE literals).
    Instant(i64),
    Geometry(Geometry<f64>),
}

/// A boolean expression.
#[derive(Debug, Clone)]
pub enum Expr {
    And(Vec<Expr>),
    Or(Vec<Expr>),
    Not(Box<Expr>),
    Literal(bool),
    Compare(CmpOp, Operand, Operand),
    Like { value: Operand, pattern: String },
    Between { value: Operand, low: Operand, high: Operand },
    In { value: Operand, list: Vec<Operand> },
    IsNull(Operand),
    Spatial(SpatialOp, Operand, Operand),
}

impl Expr {
    /// Every property the expression names.
    pub fn properties(&self) -> Vec<String> {
        fn operand(o: &Operand, out: &mut Vec<String>) {
            if let Operand::Property(p) = o {
                out.push(p.clone());
            }
        }
        fn walk(e: &Expr, out: &mut Vec<String>) {
            match e {
                Expr::And(v) | Expr::Or(v) => v.iter().for_each(|e| walk(e, out)),
                Expr::Not(e) => walk(e, out),
                Expr::Literal(_) => {}
                Expr::Compare(_, a, b) | Expr::Spatial(_, a, b) => {
                    operand(a, out);
                    operand(b, out);
                }
                Expr::Like { value, .. } | Expr::IsNull(value) => operand(value, out),
                Expr::Between { value, low, high } => {
                    operand(value, out);
                    operand(low, out);
                    operand(high, out);
                }
                Expr::In { value, list } => {
                    operand(value, out);
                    list.iter().for_each(|o| operand(o, out));
                }
            }
        }
        let mut out = Vec::new();
        walk(self, &mut out);
        out
    }
}

/// What a filter is evaluated against.
pub struct Subject<'a> {
    pub id: &'a str,
    pub properties: &'a Map<String, Value>,
    pub geometry: Option<&'a Geometry<f64>>,
    /// The name of the geometry property (`geometry`).
    pub geometry_name: &'a str,
}

#[derive(Debug, Clone)]
enum Val {
    Null,
    Str(String),
    Num(f64),
    Bool(bool),
    Instant(i64),
    Geom(Geometry<f64>),
}

fn resolve(o: &Operand, s: &Subject<'_>) -> Val {
    match o {
        Operand::Property(name) if name == s.geometry_name => s.geometry.cloned().map(Val::Geom).unwrap_or(Val::Null),
        Operand::Property(name) if name == "id" => Val::Str(s.id.to_owned()),
        Operand::Property(name) => match s.properties.get(name) {
            None | Some(Value::Null) => Val::Null,
            Some(Value::String(t)) => Val::Str(t.clone()),
            Some(Value::Number(n)) => n.as_f64().map(Val::Num).unwrap_or(Val::Null),
            Some(Value::Bool(b)) => Val::Bool(*b),
            Some(other) => Val::Str(other.to_string()),
        },
        Operand::Str(t) => Val::Str(t.clone()),
        Operand::Num(n) => Val::Num(*n),
        Operand::Bool(b) => Val::Bool(*b),
        Operand::Instant(t) => Val::Instant(*t),
        Operand::Geometry(g) => Val::Geom(g.clone()),
    }
}

fn instant_of(text: &str) -> Option<i64> {
    meridian_core::Timestamp::parse(text)
        .map(|t| t.millis())
        .or_else(|| chrono_free_date(text).map(|days| days * 86_400_000))
}

/// Days since the epoch of a `YYYY-MM-DD` date.
fn chrono_free_date(text: &str) -> Option<i64> {
    let mut parts = text.splitn(3, '-');
    let (y, m, d): (i64, i64, i64) =
        (parts.next()?.parse().ok()?, parts.next()?.parse().ok()?, parts.next()?.parse().ok()?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || text.len() != 10 {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

fn order(a: &Val, b: &Val) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Val::Num(x), Val::Num(y)) => x.partial_cmp(y),
        (Val::Str(x), Val::Str(y)) => Some(x.cmp(y)),
        (Val::Bool(x), Val::Bool(y)) => Some(x.cmp(y)),
        (Val::Instant(x), Val::Instant(y)) => Some(x.cmp(y)),
        (Val::Str(x), Val::Instant(y)) => instant_of(x).map(|x| x.cmp(y)),
        (Val::Instant(x), Val::Str(y)) => instant_of(y).map(|y| x.cmp(&y)),
        _ => None,
    }
}

fn like(text: &str, pattern: &str) -> bool {
    fn go(t: &[char], p: &[char]) -> bool {
        match p.split_first() {
            None => t.is_empty(),
            Some(('%', rest)) => (0..=t.len()).any(|i| go(&t[i..], rest)),
            Some(('_', rest)) => !t.is_empty() && go(&t[1..], rest),
            Some(('\\', rest)) if !rest.is_empty() => t.first() == rest.first() && go(&t[1..], &rest[1..]),
            Some((c, rest)) => t.first() == Some(c) && go(&t[1..], rest),
        }
    }
    let t: Vec<char> = text.chars().collect();
    let p: Vec<char> = pattern.chars().collect();
    go(&t, &p)
}

fn spatial(op: SpatialOp, a: &Geometry<f64>, b: &Geometry<f64>) -> bool {
    let m = a.relate(b);
    match op {
        SpatialOp::Intersects => m.is_intersects(),
        SpatialOp::Disjoint => m.is_disjoint(),
        SpatialOp::Contains => m.is_contains(),
        SpatialOp::Within => m.is_within(),
        SpatialOp::Equals => m.is_equal_topo(),
        SpatialOp::Touches => m.is_touches(),
        SpatialOp::Crosses => m.is_crosses(),
        SpatialOp::Overlaps => m.is_overlaps(),
    }
}

/// Three-valued evaluation: `None` is unknown.
pub fn eval(e: &Expr, s: &Subject<'_>) -> Option<bool> {
    match e {
        Expr::Literal(b) => Some(*b),
        Expr::And(v) => {
            let mut unknown = false;
            for e in v {
                match eval(e, s) {
                    Some(false) => return Some(false),
                    None => unknown = true,
                    Some(true) => {}
                }
            }
            (!unknown).then_some(true)
        }
        Expr::Or(v) => {
            let mut unknown = false;
            for e in v {
                match eval(e, s) {
                    Some(true) => return Some(true),
                    None => unknown = true,
                    Some(false) => {}
                }
            }
            (!unknown).then_some(false)
        }
        Expr::Not(e) => eval(e, s).map(|b| !b),
        Expr::Compare(op, a, b) => {
            let (a, b) = (resolve(a, s), resolve(b, s));
            let o = order(&a, &b)?;
            Some(match op {
                CmpOp::Eq => o.is_eq(),
                CmpOp::Ne => o.is_ne(),
                CmpOp::Lt => o.is_lt(),
                CmpOp::Le => o.is_le(),
                CmpOp::Gt => o.is_gt(),
                CmpOp::Ge => o.is_ge(),
            })
        }
        Expr::Like { value, pattern } => match resolve(value, s) {
            Val::Str(t) => Some(like(&t, pattern)),
            _ => None,
        },
        Expr::Between { value, low, high } => {
            let v = resolve(value, s);
            let lo = order(&v, &resolve(low, s))?;
            let hi = order(&v, &resolve(high, s))?;
            Some(lo.is_ge() && hi.is_le())
        }
        Expr::In { value, list } => {
            let v = resolve(value, s);
            if matches!(v, Val::Null) {
                return None;
            }
            Some(list.iter().any(|o| order(&v, &resolve(o, s)).is_some_and(|c| c.is_eq())))
        }
        Expr::IsNull(o) => Some(matches!(resolve(o, s), Val::Null)),
        Expr::Spatial(op, a, b) => match (resolve(a, s), resolve(b, s)) {
            (Val::Geom(a), Val::Geom(b)) => Some(spatial(*op, &a, &b)),
            _ => None,
        },
    }
}

/// Whether the filter selects the subject (unknown does not).
pub fn matches(e: &Expr, s: &Subject<'_>) -> bool {
    eval(e, s) == Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn subject_props() -> Map<String, Value> {
        json!({"lot": "12", "plan": "DP1234", "tenure": "freehold", "area_m2": 650.5, "updated_at": "2026-03-01T00:00:00Z"})
            .as_object()
            .cloned()
            .unwrap_or_default()
    }

    fn check(text: &str) -> Option<bool> {
        let props = subject_props();
        let geom = Geometry::Polygon(crate::Bbox { min_x: 0.0, min_y: 0.0, max_x: 1.0, max_y: 1.0 }.to_polygon());
        let s = Subject { id: "parcel_x", properties: &props, geometry: Some(&geom), geometry_name: "geometry" };
        let e = parse_text(text).unwrap_or_else(|err| panic!("{text}: {err}"));
        eval(&e, &s)
    }

    #[test]
    fn text_filters_evaluate() {
        assert_eq!(check("tenure = 'freehold'"), Some(true));
        assert_eq!(check("tenure <> 'freehold' OR area_m2 > 600"), Some(true));
        assert_eq!(check("NOT (area_m2 >= 650.5)"), Some(false));
        assert_eq!(check("plan LIKE 'DP%'"), Some(true));
        assert_eq!(check("plan NOT LIKE 'DP_2%'"), Some(false));
        assert_eq!(check("area_m2 BETWEEN 600 AND 700"), Some(true));
        assert_eq!(check("lot IN ('1', '12', '13')"), Some(true));
        assert_eq!(check("missing = 3"), None);
        assert_eq!(check("missing IS NULL AND lot IS NOT NULL"), Some(true));
        assert_eq!(check("updated_at > TIMESTAMP('2026-01-01T00:00:00Z')"), Some(true));
        assert_eq!(check("updated_at < DATE('2026-02-01')"), Some(false));
        assert_eq!(check("S_INTERSECTS(geometry, POINT(0.5 0.5))"), Some(true));
        assert_eq!(check("S_INTERSECTS(geometry, BBOX(2, 2, 3, 3))"), Some(false));
        assert_eq!(check("S_WITHIN(geometry, POLYGON((-1 -1, 2 -1, 2 2, -1 2, -1 -1)))"), Some(true));
        assert_eq!(check("s_disjoint(geometry, LINESTRING(5 5, 6 6))"), Some(true));
        assert_eq!(check("\"lot\" = '12' and true"), Some(true));
    }

    #[test]
    fn json_filters_evaluate_like_text() {
        let props = subject_props();
        let geom = Geometry::Polygon(crate::Bbox { min_x: 0.0, min_y: 0.0, max_x: 1.0, max_y: 1.0 }.to_polygon());
        let s = Subject { id: "p", properties: &props, geometry: Some(&geom), geometry_name: "geometry" };
        let f = json!({"op": "and", "args": [
            {"op": "=", "args": [{"property": "tenure"}, "freehold"]},
            {"op": "s_intersects", "args": [{"property": "geometry"}, {"type": "Point", "coordinates": [0.5, 0.5]}]},
            {"op": "between", "args": [{"property": "area_m2"}, 600, 700]},
            {"op": "in", "args": [{"property": "lot"}, ["12", "13"]]},
            {"op": ">", "args": [{"property": "updated_at"}, {"timestamp": "2026-01-01T00:00:00Z"}]},
            {"op": "not", "args": [{"op": "isNull", "args": [{"property": "plan"}]}]}
        ]});
        let e = parse_json(&f).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(eval(&e, &s), Some(true));
        assert!(parse_json(&json!({"op": "nope", "args": []})).is_err());
    }

    #[test]
    fn syntax_errors_are_reported() {
        for bad in ["lot =", "lot = 'x", "(lot = 'x'", "lot ~ 3", "S_INTERSECTS(geometry, POINT(1))", "lot = 'a' AND"] {
            assert!(parse_text(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn dates() {
        assert_eq!(chrono_free_date("1970-01-02"), Some(1));
        assert_eq!(chrono_free_date("2026-03-01"), Some(20513));
    }
}
