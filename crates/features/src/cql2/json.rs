//! The cql2-json encoding.

use super::{instant_of, CmpOp, Cql2Error, Expr, Limits, Operand, SpatialOp};
use crate::geometry;
use serde_json::Value;

fn err(m: impl Into<String>) -> Cql2Error {
    Cql2Error(m.into())
}

fn args(v: &Value) -> Result<&Vec<Value>, Cql2Error> {
    v.get("args").and_then(Value::as_array).ok_or_else(|| err("an operation needs an `args` array"))
}

fn operand(v: &Value) -> Result<Operand, Cql2Error> {
    Ok(match v {
        Value::String(s) => Operand::Str(s.clone()),
        Value::Number(n) => Operand::Num(n.as_f64().ok_or_else(|| err("number out of range"))?),
        Value::Bool(b) => Operand::Bool(*b),
        Value::Object(o) => {
            if let Some(p) = o.get("property").and_then(Value::as_str) {
                Operand::Property(p.to_owned())
            } else if let Some(t) = o.get("timestamp").or_else(|| o.get("date")).and_then(Value::as_str) {
                Operand::Instant(instant_of(t).ok_or_else(|| err(format!("`{t}` is not a valid instant")))?)
            } else if let Some(b) = o.get("bbox").and_then(Value::as_array) {
                let text = b.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(",");
                let bbox = crate::Bbox::parse(&text).map_err(err)?;
                Operand::Geometry(geo::Geometry::Polygon(bbox.to_polygon()))
            } else if o.contains_key("type") {
                // A query shape, like a WKT literal in cql2-text: read as given, not held to the
                // validity rules of stored geometry (its size is bounded by the term limit).
                Operand::Geometry(geometry::decode(v).ok_or_else(|| err("invalid GeoJSON geometry literal"))?)
            } else {
                return Err(err("unknown operand object"));
            }
        }
        _ => return Err(err("unsupported operand")),
    })
}

/// Parses a cql2-json filter within the default [`Limits`].
pub fn parse_json(v: &Value) -> Result<Expr, Cql2Error> {
    parse_json_with(v, &Limits::default())
}

/// Parses a cql2-json filter given as text: its length, then the JSON, then the filter.
pub fn parse_json_text_with(text: &str, limits: &Limits) -> Result<Expr, Cql2Error> {
    limits.check_size(text.len())?;
    let v: Value = serde_json::from_str(text).map_err(|e| {
        // serde_json stops at 128 levels, below what `max_depth` operations need: say why.
        if e.to_string().starts_with("recursion limit exceeded") {
            limits.too_deep()
        } else {
            err(format!("not JSON: {e}"))
        }
    })?;
    parse_json_with(&v, limits)
}

/// Parses a cql2-json filter; a filter beyond `limits` is an error naming the limit.
pub fn parse_json_with(v: &Value, limits: &Limits) -> Result<Expr, Cql2Error> {
    // Count and measure the document with an explicit stack before any recursion. Each level of
    // operations is two levels of JSON (the object and its `args`); geometry literals add a few.
    let (mut nodes, mut stack) = (0usize, vec![(v, 0usize)]);
    while let Some((value, depth)) = stack.pop() {
        nodes += 1;
        if nodes > limits.max_terms {
            return Err(limits.too_many());
        }
        if depth > 2 * limits.max_depth + 8 {
            return Err(limits.too_deep());
        }
        match value {
            Value::Array(items) => stack.extend(items.iter().map(|i| (i, depth + 1))),
            Value::Object(members) => stack.extend(members.values().map(|i| (i, depth + 1))),
            _ => {}
        }
    }
    parse_at(v, limits, 0)
}

fn parse_at(v: &Value, limits: &Limits, depth: usize) -> Result<Expr, Cql2Error> {
    if depth > limits.max_depth {
        return Err(limits.too_deep());
    }
    let parse_json = |v: &Value| parse_at(v, limits, depth + 1);
    if let Value::Bool(b) = v {
        return Ok(Expr::Literal(*b));
    }
    let op = v.get("op").and_then(Value::as_str).ok_or_else(|| err("a filter needs an `op`"))?;
    let a = args(v)?;
    let two = |a: &Vec<Value>| -> Result<(Operand, Operand), Cql2Error> {
        match a.as_slice() {
            [x, y] => Ok((operand(x)?, operand(y)?)),
            _ => Err(err(format!("`{op}` takes two arguments"))),
        }
    };
    let cmp = |c: CmpOp| -> Result<Expr, Cql2Error> {
        let (x, y) = two(a)?;
        Ok(Expr::Compare(c, x, y))
    };
    Ok(match op.to_ascii_lowercase().as_str() {
        "and" => Expr::And(a.iter().map(parse_json).collect::<Result<_, _>>()?),
        "or" => Expr::Or(a.iter().map(parse_json).collect::<Result<_, _>>()?),
        "not" => match a.as_slice() {
            [x] => Expr::Not(Box::new(parse_json(x)?)),
            _ => return Err(err("`not` takes one argument")),
        },
        "=" => cmp(CmpOp::Eq)?,
        "<>" => cmp(CmpOp::Ne)?,
        "<" => cmp(CmpOp::Lt)?,
        "<=" => cmp(CmpOp::Le)?,
        ">" => cmp(CmpOp::Gt)?,
        ">=" => cmp(CmpOp::Ge)?,
        "like" => {
            // `{"op": "casei", "args": [x]}` (CQL2 1.0), or the draft's `{"casei": x}`.
            let casei = |v: &Value| match (v.get("op").and_then(Value::as_str), v.get("args").and_then(Value::as_array))
            {
                (Some(op), Some(args)) if op.eq_ignore_ascii_case("casei") && args.len() == 1 => Some(args[0].clone()),
                _ => v.get("casei").cloned(),
            };
            let (x, x_casei) = match a.first() {
                Some(x) => casei(x).map_or((x.clone(), false), |inner| (inner, true)),
                None => return Err(err("`like` takes a value and a string pattern")),
            };
            let (p, p_casei) = match a.get(1) {
                Some(p) => casei(p).map_or((p.clone(), false), |inner| (inner, true)),
                None => return Err(err("`like` takes a value and a string pattern")),
            };
            match (&p, a.len()) {
                (Value::String(p), 2) => {
                    Expr::Like { value: operand(&x)?, pattern: p.clone(), case_insensitive: x_casei || p_casei }
                }
                _ => return Err(err("`like` takes a value and a string pattern")),
            }
        }
        "between" => match a.as_slice() {
            [x, lo, hi] => Expr::Between { value: operand(x)?, low: operand(lo)?, high: operand(hi)? },
            // The draft form that some clients still send: the bounds as one array.
            [x, Value::Array(bounds)] if bounds.len() == 2 => {
                Expr::Between { value: operand(x)?, low: operand(&bounds[0])?, high: operand(&bounds[1])? }
            }
            _ => return Err(err("`between` takes three arguments")),
        },
        "in" => match a.as_slice() {
            [x, Value::Array(list)] => {
                Expr::In { value: operand(x)?, list: list.iter().map(operand).collect::<Result<_, _>>()? }
            }
            _ => return Err(err("`in` takes a value and an array")),
        },
        "isnull" => match a.as_slice() {
            [x] => Expr::IsNull(operand(x)?),
            _ => return Err(err("`isNull` takes one argument")),
        },
        name => match SpatialOp::from_name(name) {
            Some(s) => {
                let (x, y) = two(a)?;
                Expr::Spatial(s, x, y)
            }
            None => return Err(err(format!("unknown operation `{op}`"))),
        },
    })
}
