//! The cql2-text encoding, with WKT geometry literals and BBOX(...).

use super::{instant_of, CmpOp, Cql2Error, Expr, Limits, Operand, SpatialOp};
use geo::{Coord, Geometry, LineString, MultiLineString, MultiPoint, MultiPolygon, Point, Polygon};

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Quoted(String),
    Str(String),
    Num(f64),
    Op(&'static str),
    LParen,
    RParen,
    Comma,
}

fn lex(input: &str) -> Result<Vec<Tok>, Cql2Error> {
    let chars: Vec<char> = input.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            c if c.is_whitespace() => i += 1,
            '(' => {
                out.push(Tok::LParen);
                i += 1
            }
            ')' => {
                out.push(Tok::RParen);
                i += 1
            }
            ',' => {
                out.push(Tok::Comma);
                i += 1
            }
            '=' => {
                out.push(Tok::Op("="));
                i += 1
            }
            '<' | '>' => {
                let next = chars.get(i + 1).copied();
                let op = match (c, next) {
                    ('<', Some('>')) => "<>",
                    ('<', Some('=')) => "<=",
                    ('>', Some('=')) => ">=",
                    ('<', _) => "<",
                    _ => ">",
                };
                i += op.len();
                out.push(Tok::Op(op));
            }
            '\'' => {
                let mut s = String::new();
                i += 1;
                loop {
                    match chars.get(i) {
                        None => return Err(Cql2Error("unterminated string literal".into())),
                        Some('\'') if chars.get(i + 1) == Some(&'\'') => {
                            s.push('\'');
                            i += 2;
                        }
                        Some('\'') => {
                            i += 1;
                            break;
                        }
                        Some(ch) => {
                            s.push(*ch);
                            i += 1;
                        }
                    }
                }
                out.push(Tok::Str(s));
            }
            '"' => {
                let end = chars[i + 1..]
                    .iter()
                    .position(|ch| *ch == '"')
                    .ok_or_else(|| Cql2Error("unterminated quoted identifier".into()))?;
                out.push(Tok::Quoted(chars[i + 1..i + 1 + end].iter().collect()));
                i += end + 2;
            }
            c if c.is_ascii_digit()
                || c == '.'
                || ((c == '-' || c == '+') && chars.get(i + 1).is_some_and(|n| n.is_ascii_digit() || *n == '.')) =>
            {
                let start = i;
                i += 1;
                while i < chars.len()
                    && (chars[i].is_ascii_digit()
                        || chars[i] == '.'
                        || chars[i] == 'e'
                        || chars[i] == 'E'
                        || ((chars[i] == '-' || chars[i] == '+') && matches!(chars[i - 1], 'e' | 'E')))
                {
                    i += 1;
                }
                let text: String = chars[start..i].iter().collect();
                out.push(Tok::Num(text.parse().map_err(|_| Cql2Error(format!("bad number {text}")))?));
            }
            c if c.is_alphabetic() || c == '_' => {
                let start = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || matches!(chars[i], '_' | '.' | ':')) {
                    i += 1;
                }
                out.push(Tok::Ident(chars[start..i].iter().collect()));
            }
            other => return Err(Cql2Error(format!("unexpected character `{other}`"))),
        }
    }
    Ok(out)
}

const WKT_KINDS: [&str; 9] = [
    "POINT",
    "LINESTRING",
    "POLYGON",
    "MULTIPOINT",
    "MULTILINESTRING",
    "MULTIPOLYGON",
    "GEOMETRYCOLLECTION",
    "BBOX",
    "ENVELOPE",
];

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
    /// Open parentheses and `NOT`s around the current position.
    depth: usize,
    limits: Limits,
}

fn is_kw(t: Option<&Tok>, kw: &str) -> bool {
    matches!(t, Some(Tok::Ident(s)) if s.eq_ignore_ascii_case(kw))
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn peek_at(&self, n: usize) -> Option<&Tok> {
        self.toks.get(self.pos + n)
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).cloned();
        self.pos += 1;
        t
    }

    fn eat_kw(&mut self, kw: &str) -> bool {
        if is_kw(self.peek(), kw) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, t: Tok, what: &str) -> Result<(), Cql2Error> {
        if self.peek() == Some(&t) {
            self.pos += 1;
            Ok(())
        } else {
            Err(Cql2Error(format!("expected {what}")))
        }
    }

    fn enter(&mut self) -> Result<(), Cql2Error> {
        self.depth += 1;
        if self.depth > self.limits.max_depth {
            return Err(self.limits.too_deep());
        }
        Ok(())
    }

    fn or(&mut self) -> Result<Expr, Cql2Error> {
        let mut terms = vec![self.and()?];
        while self.eat_kw("OR") {
            terms.push(self.and()?);
        }
        Ok(if terms.len() == 1 { terms.remove(0) } else { Expr::Or(terms) })
    }

    fn and(&mut self) -> Result<Expr, Cql2Error> {
        let mut terms = vec![self.not()?];
        while self.eat_kw("AND") {
            terms.push(self.not()?);
        }
        Ok(if terms.len() == 1 { terms.remove(0) } else { Expr::And(terms) })
    }

    fn not(&mut self) -> Result<Expr, Cql2Error> {
        // A loop, not recursion: a run of NOTs costs no stack, only depth.
        let mut nots = 0;
        while self.eat_kw("NOT") {
            self.enter()?;
            nots += 1;
        }
        let mut e = self.primary()?;
        for _ in 0..nots {
            e = Expr::Not(Box::new(e));
        }
        self.depth -= nots;
        Ok(e)
    }

    fn primary(&mut self) -> Result<Expr, Cql2Error> {
        if self.peek() == Some(&Tok::LParen) {
            self.pos += 1;
            self.enter()?;
            let e = self.or()?;
            self.expect(Tok::RParen, "`)`")?;
            self.depth -= 1;
            return Ok(e);
        }
        if let Some(Tok::Ident(name)) = self.peek() {
            if let Some(op) = SpatialOp::from_name(name) {
                self.pos += 1;
                self.expect(Tok::LParen, "`(` after a spatial function")?;
                let a = self.geometry_operand()?;
                self.expect(Tok::Comma, "`,` between spatial arguments")?;
                let b = self.geometry_operand()?;
                self.expect(Tok::RParen, "`)`")?;
                return Ok(Expr::Spatial(op, a, b));
            }
            let is_bool = name.eq_ignore_ascii_case("true") || name.eq_ignore_ascii_case("false");
            let followed_by_predicate = self.peek_at(1).is_some_and(|t| {
                matches!(t, Tok::Op(_)) || ["LIKE", "BETWEEN", "IN", "IS", "NOT"].iter().any(|k| is_kw(Some(t), k))
            });
            if is_bool && !followed_by_predicate {
                let b = name.eq_ignore_ascii_case("true");
                self.pos += 1;
                return Ok(Expr::Literal(b));
            }
        }
        self.predicate()
    }

    /// `CASEI(` opening a case-insensitive operand (its `)` is left to the caller).
    fn eat_casei(&mut self) -> bool {
        if is_kw(self.peek(), "CASEI") && self.peek_at(1) == Some(&Tok::LParen) {
            self.pos += 2;
            return true;
        }
        false
    }

    fn predicate(&mut self) -> Result<Expr, Cql2Error> {
        let left_casei = self.eat_casei();
        let left = self.scalar()?;
        if left_casei {
            self.expect(Tok::RParen, "`)` closing CASEI")?;
        }
        let negated = self.eat_kw("NOT");
        if self.eat_kw("LIKE") {
            let pattern_casei = self.eat_casei();
            let Some(Tok::Str(pattern)) = self.next() else {
                return Err(Cql2Error("LIKE needs a string pattern".into()));
            };
            if pattern_casei {
                self.expect(Tok::RParen, "`)` closing CASEI")?;
            }
            let e = Expr::Like { value: left, pattern, case_insensitive: left_casei || pattern_casei };
            return Ok(if negated { Expr::Not(Box::new(e)) } else { e });
        }
        if left_casei {
            return Err(Cql2Error("CASEI is supported with LIKE only".into()));
        }
        if self.eat_kw("BETWEEN") {
            let low = self.scalar()?;
            if !self.eat_kw("AND") {
                return Err(Cql2Error("BETWEEN needs AND".into()));
            }
            let high = self.scalar()?;
            let e = Expr::Between { value: left, low, high };
            return Ok(if negated { Expr::Not(Box::new(e)) } else { e });
        }
        if self.eat_kw("IN") {
            self.expect(Tok::LParen, "`(` after IN")?;
            let mut list = vec![self.scalar()?];
            while self.peek() == Some(&Tok::Comma) {
                self.pos += 1;
                list.push(self.scalar()?);
            }
            self.expect(Tok::RParen, "`)`")?;
            let e = Expr::In { value: left, list };
            return Ok(if negated { Expr::Not(Box::new(e)) } else { e });
        }
        if negated {
            return Err(Cql2Error("NOT must be followed by LIKE, BETWEEN or IN here".into()));
        }
        if self.eat_kw("IS") {
            let not = self.eat_kw("NOT");
            if !self.eat_kw("NULL") {
                return Err(Cql2Error("IS must be followed by NULL or NOT NULL".into()));
            }
            let e = Expr::IsNull(left);
            return Ok(if not { Expr::Not(Box::new(e)) } else { e });
        }
        let op = match self.next() {
            Some(Tok::Op(op)) => match op {
                "=" => CmpOp::Eq,
                "<>" => CmpOp::Ne,
                "<" => CmpOp::Lt,
                "<=" => CmpOp::Le,
                ">" => CmpOp::Gt,
                _ => CmpOp::Ge,
            },
            _ => return Err(Cql2Error("expected a comparison operator".into())),
        };
        let right = self.scalar()?;
        Ok(Expr::Compare(op, left, right))
    }

    fn scalar(&mut self) -> Result<Operand, Cql2Error> {
        match self.next() {
            Some(Tok::Str(s)) => Ok(Operand::Str(s)),
            Some(Tok::Num(n)) => Ok(Operand::Num(n)),
            Some(Tok::Quoted(p)) => Ok(Operand::Property(p)),
            Some(Tok::Ident(name)) => {
                let upper = name.to_ascii_uppercase();
                if (upper == "TIMESTAMP" || upper == "DATE") && self.peek() == Some(&Tok::LParen) {
                    self.pos += 1;
                    let Some(Tok::Str(text)) = self.next() else {
                        return Err(Cql2Error(format!("{upper} needs a quoted value")));
                    };
                    self.expect(Tok::RParen, "`)`")?;
                    let at = instant_of(&text).ok_or_else(|| Cql2Error(format!("`{text}` is not a valid {upper}")))?;
                    return Ok(Operand::Instant(at));
                }
                match upper.as_str() {
                    "TRUE" => Ok(Operand::Bool(true)),
                    "FALSE" => Ok(Operand::Bool(false)),
                    _ => Ok(Operand::Property(name)),
                }
            }
            _ => Err(Cql2Error("expected a property or a literal".into())),
        }
    }

    fn geometry_operand(&mut self) -> Result<Operand, Cql2Error> {
        if let Some(Tok::Ident(name)) = self.peek() {
            let upper = name.to_ascii_uppercase();
            if WKT_KINDS.contains(&upper.as_str()) {
                // `POLYGON Z (...)`: the dimension keyword is read and the extra ordinates dropped.
                let dims = ["Z", "M", "ZM"].iter().any(|k| is_kw(self.peek_at(1), k));
                let open_at = if dims { 2 } else { 1 };
                if self.peek_at(open_at) == Some(&Tok::LParen) {
                    self.pos += open_at;
                    return self.wkt(&upper).map(Operand::Geometry);
                }
            }
        }
        self.scalar()
    }

    fn number(&mut self) -> Result<f64, Cql2Error> {
        match self.next() {
            Some(Tok::Num(n)) => Ok(n),
            _ => Err(Cql2Error("expected a number".into())),
        }
    }

    /// `x y` (optionally `z` and `m`).
    fn coord(&mut self) -> Result<Coord<f64>, Cql2Error> {
        let x = self.number()?;
        let y = self.number()?;
        for _ in 0..2 {
            if matches!(self.peek(), Some(Tok::Num(_))) {
                self.pos += 1;
            }
        }
        Ok(Coord { x, y })
    }

    fn list<T>(&mut self, mut item: impl FnMut(&mut Self) -> Result<T, Cql2Error>) -> Result<Vec<T>, Cql2Error> {
        self.expect(Tok::LParen, "`(`")?;
        let mut out = vec![item(self)?];
        while self.peek() == Some(&Tok::Comma) {
            self.pos += 1;
            out.push(item(self)?);
        }
        self.expect(Tok::RParen, "`)`")?;
        Ok(out)
    }

    fn ring(&mut self) -> Result<LineString<f64>, Cql2Error> {
        Ok(LineString(self.list(Self::coord)?))
    }

    fn polygon(&mut self) -> Result<Polygon<f64>, Cql2Error> {
        let mut rings = self.list(Self::ring)?;
        let shell = rings.remove(0);
        Ok(Polygon::new(shell, rings))
    }

    fn point_in_multipoint(&mut self) -> Result<Point<f64>, Cql2Error> {
        if self.peek() == Some(&Tok::LParen) {
            self.pos += 1;
            let c = self.coord()?;
            self.expect(Tok::RParen, "`)`")?;
            Ok(Point(c))
        } else {
            self.coord().map(Point)
        }
    }

    /// A WKT geometry with its kind keyword, as inside a GEOMETRYCOLLECTION.
    fn tagged_wkt(&mut self) -> Result<Geometry<f64>, Cql2Error> {
        let kind = match self.next() {
            Some(Tok::Ident(k)) if WKT_KINDS[..7].contains(&k.to_ascii_uppercase().as_str()) => k.to_ascii_uppercase(),
            _ => return Err(Cql2Error("expected a WKT geometry".into())),
        };
        if ["Z", "M", "ZM"].iter().any(|k| is_kw(self.peek(), k)) {
            self.pos += 1;
        }
        self.wkt(&kind)
    }

    fn wkt(&mut self, kind: &str) -> Result<Geometry<f64>, Cql2Error> {
        Ok(match kind {
            "POINT" => {
                self.expect(Tok::LParen, "`(`")?;
                let c = self.coord()?;
                self.expect(Tok::RParen, "`)`")?;
                Geometry::Point(Point(c))
            }
            "LINESTRING" => Geometry::LineString(self.ring()?),
            "POLYGON" => Geometry::Polygon(self.polygon()?),
            "MULTIPOINT" => Geometry::MultiPoint(MultiPoint(self.list(Self::point_in_multipoint)?)),
            "MULTILINESTRING" => Geometry::MultiLineString(MultiLineString(self.list(Self::ring)?)),
            "MULTIPOLYGON" => Geometry::MultiPolygon(MultiPolygon(self.list(Self::polygon)?)),
            "GEOMETRYCOLLECTION" => {
                // Collections may nest: each level counts towards the depth limit.
                self.enter()?;
                let parts = self.list(Self::tagged_wkt)?;
                self.depth -= 1;
                Geometry::GeometryCollection(parts.into())
            }
            _ => {
                let n = self.list(Self::number)?;
                let b = match n.as_slice() {
                    // CQL2 BBOX is minx, miny, maxx, maxy; ENVELOPE (ECQL) is minx, maxx, maxy, miny.
                    [a, b, c, d] if kind == "BBOX" => crate::Bbox { min_x: *a, min_y: *b, max_x: *c, max_y: *d },
                    [a, b, c, d] => crate::Bbox { min_x: *a, max_x: *b, max_y: *c, min_y: *d },
                    [a, b, _, d, e, _] => crate::Bbox { min_x: *a, min_y: *b, max_x: *d, max_y: *e },
                    _ => return Err(Cql2Error("BBOX needs four numbers".into())),
                };
                Geometry::Polygon(b.to_polygon())
            }
        })
    }
}

/// Parses a cql2-text filter within the default [`Limits`].
pub fn parse_text(input: &str) -> Result<Expr, Cql2Error> {
    parse_text_with(input, &Limits::default())
}

/// Parses a cql2-text filter; a filter beyond `limits` is an error naming the limit.
pub fn parse_text_with(input: &str, limits: &Limits) -> Result<Expr, Cql2Error> {
    limits.check_size(input.len())?;
    let toks = lex(input)?;
    if toks.is_empty() {
        return Err(Cql2Error("the filter is empty".into()));
    }
    if toks.len() > limits.max_terms {
        return Err(limits.too_many());
    }
    let mut p = Parser { toks, pos: 0, depth: 0, limits: *limits };
    let e = p.or()?;
    if p.pos < p.toks.len() {
        return Err(Cql2Error(format!("unexpected text after the filter (token {})", p.pos + 1)));
    }
    Ok(e)
}
