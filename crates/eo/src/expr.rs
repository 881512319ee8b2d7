//! Band-math expressions: `(nir - red) / (nir + red)` and the like over named bands.
//!
//! The grammar is small: numbers (`2`, `.5`, `1e-3`), identifiers (`B8`, `nir`: letters, digits
//! and `_`, not starting with a digit), `+ - * /`, power (`^` or `**`, right-associative, binding
//! tighter than unary minus as in Python: `-2^2` is `-4`), parentheses, and the functions `abs`,
//! `sqrt`, `exp`, `log` (natural), `min(a, b)`, `max(a, b)` and `clamp(x, lo, hi)`.
//!
//! A parsed [`Expression`] is a flat list of nodes in post-order (children before parents), so
//! evaluating, printing and dropping it never recurse however deep the expression is. Evaluation
//! is column-wise: each node runs over a chunk of [`CHUNK`] pixels at a time into a scratch
//! buffer, so the inner loops are plain arithmetic over slices that the compiler vectorizes.
//! Arithmetic is in `f32`, operation by operation in the order written, which is what numpy does
//! with `float32` arrays; any result that is not finite becomes NaN.

use std::fmt;

/// Pixels evaluated per chunk: large enough to amortize the per-node dispatch, small enough that
/// the scratch buffers stay in the L1/L2 cache.
pub const CHUNK: usize = 1024;

/// Why an expression does not parse: a message and the byte offset it refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExprError {
    /// What is wrong, e.g. `unexpected ')'` or `unknown function 'foo'`.
    pub message: String,
    /// Byte offset in the expression text.
    pub position: usize,
}

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at {}", self.message, self.position)
    }
}

impl std::error::Error for ExprError {}

fn err<T>(message: impl Into<String>, position: usize) -> Result<T, ExprError> {
    Err(ExprError { message: message.into(), position })
}

/// Bounds on what a parsed expression may hold, so that untrusted text cannot exhaust the stack
/// or memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Longest expression text, in bytes.
    pub max_len: usize,
    /// Most nodes (numbers, bands, operators, function calls).
    pub max_nodes: usize,
    /// Deepest nesting of parentheses, unary minus, powers and function arguments.
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self { max_len: 4096, max_nodes: 512, max_depth: 64 }
    }
}

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Min,
    Max,
}

/// A one-argument function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Func1 {
    Neg,
    Abs,
    Sqrt,
    Exp,
    Log,
}

#[derive(Clone, Debug, PartialEq)]
enum Node {
    Num(f64),
    Var(usize),
    Unary(Func1, usize),
    Binary(BinOp, usize, usize),
    Clamp(usize, usize, usize),
}

/// A parsed band-math expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Expression {
    /// Post-order: every node's operands come before it; the last node is the root.
    nodes: Vec<Node>,
    variables: Vec<String>,
}

/// The functions, with their arity.
const FUNCTIONS: &[(&str, usize)] =
    &[("abs", 1), ("sqrt", 1), ("exp", 1), ("log", 1), ("min", 2), ("max", 2), ("clamp", 3)];

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(f64),
    Ident(String),
    Plus,
    Minus,
    Star,
    Slash,
    Pow,
    LParen,
    RParen,
    Comma,
    End,
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Num(v) => format!("number {v}"),
            Tok::Ident(s) => format!("'{s}'"),
            Tok::Plus => "'+'".into(),
            Tok::Minus => "'-'".into(),
            Tok::Star => "'*'".into(),
            Tok::Slash => "'/'".into(),
            Tok::Pow => "'^'".into(),
            Tok::LParen => "'('".into(),
            Tok::RParen => "')'".into(),
            Tok::Comma => "','".into(),
            Tok::End => "end of expression".into(),
        }
    }
}

fn lex(text: &str) -> Result<Vec<(Tok, usize)>, ExprError> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        let tok = match c {
            b' ' | b'\t' | b'\n' | b'\r' => {
                i += 1;
                continue;
            }
            b'+' => Tok::Plus,
            b'-' => Tok::Minus,
            b'*' if b.get(i + 1) == Some(&b'*') => {
                i += 1;
                Tok::Pow
            }
            b'*' => Tok::Star,
            b'/' => Tok::Slash,
            b'^' => Tok::Pow,
            b'(' => Tok::LParen,
            b')' => Tok::RParen,
            b',' => Tok::Comma,
            b'0'..=b'9' | b'.' => {
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                if i < b.len() && b[i] == b'.' {
                    i += 1;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                }
                if !b[start..i].iter().any(u8::is_ascii_digit) {
                    return err("malformed number", start);
                }
                if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
                    let mut j = i + 1;
                    if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
                        j += 1;
                    }
                    let digits = j;
                    while j < b.len() && b[j].is_ascii_digit() {
                        j += 1;
                    }
                    if j == digits {
                        return err("malformed number: the exponent has no digits", start);
                    }
                    i = j;
                }
                let v: f64 = text[start..i]
                    .parse()
                    .map_err(|_| ExprError { message: "malformed number".into(), position: start })?;
                if !v.is_finite() {
                    return err("number out of range", start);
                }
                out.push((Tok::Num(v), start));
                continue;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                out.push((Tok::Ident(text[start..i].to_owned()), start));
                continue;
            }
            _ => {
                let ch = text[start..].chars().next().unwrap_or('?');
                return err(format!("unexpected character '{}'", ch.escape_debug()), start);
            }
        };
        i += 1;
        out.push((tok, start));
    }
    out.push((Tok::End, text.len()));
    Ok(out)
}

struct Parser<'l> {
    toks: Vec<(Tok, usize)>,
    at: usize,
    depth: usize,
    limits: &'l Limits,
    nodes: Vec<Node>,
    variables: Vec<String>,
}

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        self.toks.get(self.at).map_or(&Tok::End, |t| &t.0)
    }
    fn pos(&self) -> usize {
        self.toks.get(self.at).map_or(0, |t| t.1)
    }
    fn bump(&mut self) {
        if self.at + 1 < self.toks.len() {
            self.at += 1;
        }
    }

    fn push(&mut self, node: Node) -> Result<usize, ExprError> {
        if self.nodes.len() >= self.limits.max_nodes {
            return err(format!("expression has more than {} terms", self.limits.max_nodes), self.pos());
        }
        self.nodes.push(node);
        Ok(self.nodes.len() - 1)
    }

    fn enter(&mut self) -> Result<(), ExprError> {
        self.depth += 1;
        if self.depth > self.limits.max_depth {
            return err(format!("expression nested more than {} levels deep", self.limits.max_depth), self.pos());
        }
        Ok(())
    }

    /// expr := term (('+' | '-') term)*
    fn expr(&mut self) -> Result<usize, ExprError> {
        let mut left = self.term()?;
        loop {
            let op = match self.peek() {
                Tok::Plus => BinOp::Add,
                Tok::Minus => BinOp::Sub,
                _ => return Ok(left),
            };
            self.bump();
            let right = self.term()?;
            left = self.push(Node::Binary(op, left, right))?;
        }
    }

    /// term := unary (('*' | '/') unary)*
    fn term(&mut self) -> Result<usize, ExprError> {
        let mut left = self.unary()?;
        loop {
            let op = match self.peek() {
                Tok::Star => BinOp::Mul,
                Tok::Slash => BinOp::Div,
                _ => return Ok(left),
            };
            self.bump();
            let right = self.unary()?;
            left = self.push(Node::Binary(op, left, right))?;
        }
    }

    /// unary := ('-' | '+') unary | power. Every recursion of the grammar passes through here,
    /// so this is where depth is counted.
    fn unary(&mut self) -> Result<usize, ExprError> {
        self.enter()?;
        let r = match self.peek() {
            Tok::Minus => {
                self.bump();
                let a = self.unary()?;
                self.push(Node::Unary(Func1::Neg, a))
            }
            Tok::Plus => {
                self.bump();
                self.unary()
            }
            _ => self.power(),
        };
        self.depth -= 1;
        r
    }

    /// power := atom (('^' | '**') unary)?
    fn power(&mut self) -> Result<usize, ExprError> {
        let base = self.atom()?;
        if *self.peek() == Tok::Pow {
            self.bump();
            let exp = self.unary()?;
            return self.push(Node::Binary(BinOp::Pow, base, exp));
        }
        Ok(base)
    }

    fn atom(&mut self) -> Result<usize, ExprError> {
        let pos = self.pos();
        match self.peek().clone() {
            Tok::Num(v) => {
                self.bump();
                self.push(Node::Num(v))
            }
            Tok::Ident(name) => {
                self.bump();
                if *self.peek() == Tok::LParen {
                    return self.call(&name, pos);
                }
                if FUNCTIONS.iter().any(|(f, _)| *f == name) {
                    return err(format!("'{name}' is a function: write {name}(...)"), pos);
                }
                let index = match self.variables.iter().position(|v| *v == name) {
                    Some(i) => i,
                    None => {
                        self.variables.push(name);
                        self.variables.len() - 1
                    }
                };
                self.push(Node::Var(index))
            }
            Tok::LParen => {
                self.bump();
                if *self.peek() == Tok::RParen {
                    return err("expected an operand inside '()'", self.pos());
                }
                let inner = self.expr()?;
                if *self.peek() != Tok::RParen {
                    return err(
                        format!("expected ')' to close the '(' at {pos}, found {}", self.peek().describe()),
                        self.pos(),
                    );
                }
                self.bump();
                Ok(inner)
            }
            Tok::End => err("expected an operand", pos),
            t => err(format!("unexpected {}, expected an operand", t.describe()), pos),
        }
    }

    fn call(&mut self, name: &str, pos: usize) -> Result<usize, ExprError> {
        let Some(&(_, arity)) = FUNCTIONS.iter().find(|(f, _)| *f == name) else {
            let known: Vec<&str> = FUNCTIONS.iter().map(|(f, _)| *f).collect();
            return err(format!("unknown function '{name}' (functions are {})", known.join(", ")), pos);
        };
        self.bump(); // '('
        let mut args = Vec::new();
        if *self.peek() != Tok::RParen {
            loop {
                args.push(self.expr()?);
                match self.peek() {
                    Tok::Comma => self.bump(),
                    Tok::RParen => break,
                    t => {
                        return err(
                            format!("expected ',' or ')' in the arguments of {name}, found {}", t.describe()),
                            self.pos(),
                        )
                    }
                }
            }
        }
        self.bump(); // ')'
        if args.len() != arity {
            let s = if arity == 1 { "" } else { "s" };
            return err(format!("{name} takes {arity} argument{s}, not {}", args.len()), pos);
        }
        let node = match (name, args.as_slice()) {
            ("abs", [a]) => Node::Unary(Func1::Abs, *a),
            ("sqrt", [a]) => Node::Unary(Func1::Sqrt, *a),
            ("exp", [a]) => Node::Unary(Func1::Exp, *a),
            ("log", [a]) => Node::Unary(Func1::Log, *a),
            ("min", [a, b]) => Node::Binary(BinOp::Min, *a, *b),
            ("max", [a, b]) => Node::Binary(BinOp::Max, *a, *b),
            ("clamp", [x, lo, hi]) => Node::Clamp(*x, *lo, *hi),
            _ => return err(format!("unknown function '{name}'"), pos),
        };
        self.push(node)
    }
}

impl Expression {
    /// Parses `text` under the default [`Limits`].
    pub fn parse(text: &str) -> Result<Expression, ExprError> {
        Self::parse_with(text, &Limits::default())
    }

    /// Parses `text` under `limits`.
    pub fn parse_with(text: &str, limits: &Limits) -> Result<Expression, ExprError> {
        if text.len() > limits.max_len {
            return err(format!("expression is longer than {} bytes", limits.max_len), limits.max_len);
        }
        let toks = lex(text)?;
        let mut p = Parser { toks, at: 0, depth: 0, limits, nodes: Vec::new(), variables: Vec::new() };
        if *p.peek() == Tok::End {
            return err("expected an operand: the expression is empty", 0);
        }
        p.expr()?;
        if *p.peek() != Tok::End {
            let t = p.peek().describe();
            return err(format!("unexpected {t}"), p.pos());
        }
        Ok(Expression { nodes: p.nodes, variables: p.variables })
    }

    /// The distinct identifiers (bands), in order of first use. Inputs to evaluation come in
    /// this order.
    pub fn variables(&self) -> &[String] {
        &self.variables
    }

    /// The same expression with identifiers renamed: `map` returns the new name, or `None` to
    /// keep the old one. Identifiers that end up with the same name become one variable.
    pub fn rename(&self, map: &dyn Fn(&str) -> Option<String>) -> Expression {
        let mut variables: Vec<String> = Vec::new();
        let mut index = Vec::with_capacity(self.variables.len());
        for v in &self.variables {
            let name = map(v).unwrap_or_else(|| v.clone());
            let i = match variables.iter().position(|x| *x == name) {
                Some(i) => i,
                None => {
                    variables.push(name);
                    variables.len() - 1
                }
            };
            index.push(i);
        }
        let nodes = self
            .nodes
            .iter()
            .map(|n| match n {
                Node::Var(i) => Node::Var(index.get(*i).copied().unwrap_or(*i)),
                other => other.clone(),
            })
            .collect();
        Expression { nodes, variables }
    }

    /// Evaluates over whole columns: `inputs[i]` holds the values of `variables()[i]`, each as
    /// long as `out`. Results that are not finite (division by zero, `log` of a negative, NaN
    /// inputs) are NaN. When the inputs do not match the variables (wrong count or length),
    /// `out` is filled with NaN.
    pub fn eval_slices(&self, inputs: &[&[f32]], out: &mut [f32]) {
        if inputs.len() != self.variables.len() || inputs.iter().any(|s| s.len() != out.len()) {
            out.fill(f32::NAN);
            return;
        }
        let program = Program::compile(&self.nodes);
        let mut slots = vec![vec![0.0f32; CHUNK]; program.slots];
        let mut start = 0;
        while start < out.len() {
            let end = (start + CHUNK).min(out.len());
            let chunk: Vec<&[f32]> = inputs.iter().map(|s| &s[start..end]).collect();
            program.run(&chunk, &mut slots, &mut out[start..end]);
            start = end;
        }
    }
}

/// Where an instruction finds an operand.
#[derive(Clone, Copy, Debug)]
enum Src {
    Slot(usize),
    Input(usize),
    Const(f32),
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Unary(Func1),
    Binary(BinOp),
    Clamp,
}

#[derive(Debug)]
struct Instr {
    op: Op,
    args: [Src; 3],
    out: usize,
}

/// An expression compiled to instructions over scratch slots, each slot a chunk-sized buffer.
/// Slots are recycled as soon as their value is consumed, so the number of buffers is about the
/// depth of the expression, not its size.
#[derive(Debug)]
struct Program {
    instrs: Vec<Instr>,
    slots: usize,
    result: Src,
}

impl Program {
    fn compile(nodes: &[Node]) -> Program {
        let mut src = Vec::with_capacity(nodes.len());
        let mut free: Vec<usize> = Vec::new();
        let mut slots = 0;
        let mut instrs = Vec::new();
        for node in nodes {
            let (op, args): (Op, Vec<usize>) = match node {
                Node::Num(v) => {
                    src.push(Src::Const(*v as f32));
                    continue;
                }
                Node::Var(i) => {
                    src.push(Src::Input(*i));
                    continue;
                }
                Node::Unary(f, a) => (Op::Unary(*f), vec![*a]),
                Node::Binary(op, a, b) => (Op::Binary(*op), vec![*a, *b]),
                Node::Clamp(x, lo, hi) => (Op::Clamp, vec![*x, *lo, *hi]),
            };
            let mut a = [Src::Const(0.0); 3];
            for (k, &i) in args.iter().enumerate() {
                a[k] = src.get(i).copied().unwrap_or(Src::Const(f32::NAN));
            }
            let out = free.pop().unwrap_or_else(|| {
                slots += 1;
                slots - 1
            });
            for s in &a[..args.len()] {
                if let Src::Slot(k) = s {
                    free.push(*k);
                }
            }
            instrs.push(Instr { op, args: a, out });
            src.push(Src::Slot(out));
        }
        let result = src.last().copied().unwrap_or(Src::Const(f32::NAN));
        Program { instrs, slots, result }
    }

    fn run(&self, inputs: &[&[f32]], slots: &mut [Vec<f32>], out: &mut [f32]) {
        let n = out.len();
        for ins in &self.instrs {
            let mut dst = std::mem::take(&mut slots[ins.out]);
            {
                let get = |s: Src| -> Operand<'_> {
                    match s {
                        Src::Slot(k) => Operand::Slice(&slots[k][..n]),
                        Src::Input(i) => Operand::Slice(&inputs[i][..n]),
                        Src::Const(c) => Operand::Const(c),
                    }
                };
                let d = &mut dst[..n];
                match ins.op {
                    Op::Unary(f) => unary(f, get(ins.args[0]), d),
                    Op::Binary(op) => binary(op, get(ins.args[0]), get(ins.args[1]), d),
                    Op::Clamp => {
                        binary(BinOp::Max, get(ins.args[0]), get(ins.args[1]), d);
                        let hi = get(ins.args[2]);
                        min_in_place(d, hi);
                    }
                }
            }
            slots[ins.out] = dst;
        }
        match self.result {
            Src::Slot(k) => out.copy_from_slice(&slots[k][..n]),
            Src::Input(i) => out.copy_from_slice(&inputs[i][..n]),
            Src::Const(c) => out.fill(c),
        }
        for v in out.iter_mut() {
            if !v.is_finite() {
                *v = f32::NAN;
            }
        }
    }
}

#[derive(Clone, Copy)]
enum Operand<'a> {
    Slice(&'a [f32]),
    Const(f32),
}

/// NaN-propagating minimum and maximum, like numpy's `minimum` and `maximum`.
#[inline(always)]
fn fmin(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else if a < b {
        a
    } else {
        b
    }
}

#[inline(always)]
fn fmax(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else if a > b {
        a
    } else {
        b
    }
}

#[inline(always)]
fn map1(a: Operand<'_>, out: &mut [f32], f: impl Fn(f32) -> f32) {
    match a {
        Operand::Slice(a) => {
            for (o, &x) in out.iter_mut().zip(a) {
                *o = f(x);
            }
        }
        Operand::Const(c) => out.fill(f(c)),
    }
}

#[inline(always)]
fn map2(a: Operand<'_>, b: Operand<'_>, out: &mut [f32], f: impl Fn(f32, f32) -> f32) {
    match (a, b) {
        (Operand::Slice(a), Operand::Slice(b)) => {
            for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                *o = f(x, y);
            }
        }
        (Operand::Slice(a), Operand::Const(y)) => {
            for (o, &x) in out.iter_mut().zip(a) {
                *o = f(x, y);
            }
        }
        (Operand::Const(x), Operand::Slice(b)) => {
            for (o, &y) in out.iter_mut().zip(b) {
                *o = f(x, y);
            }
        }
        (Operand::Const(x), Operand::Const(y)) => out.fill(f(x, y)),
    }
}

fn unary(f: Func1, a: Operand<'_>, out: &mut [f32]) {
    match f {
        Func1::Neg => map1(a, out, |x| -x),
        Func1::Abs => map1(a, out, f32::abs),
        Func1::Sqrt => map1(a, out, f32::sqrt),
        Func1::Exp => map1(a, out, f32::exp),
        Func1::Log => map1(a, out, f32::ln),
    }
}

fn binary(op: BinOp, a: Operand<'_>, b: Operand<'_>, out: &mut [f32]) {
    match op {
        BinOp::Add => map2(a, b, out, |x, y| x + y),
        BinOp::Sub => map2(a, b, out, |x, y| x - y),
        BinOp::Mul => map2(a, b, out, |x, y| x * y),
        BinOp::Div => map2(a, b, out, |x, y| x / y),
        BinOp::Pow => map2(a, b, out, f32::powf),
        BinOp::Min => map2(a, b, out, fmin),
        BinOp::Max => map2(a, b, out, fmax),
    }
}

fn min_in_place(d: &mut [f32], hi: Operand<'_>) {
    match hi {
        Operand::Slice(h) => {
            for (o, &y) in d.iter_mut().zip(h) {
                *o = fmin(*o, y);
            }
        }
        Operand::Const(y) => {
            for o in d.iter_mut() {
                *o = fmin(*o, y);
            }
        }
    }
}

/// Binding strength of a node when printed: sums 1, products 2, unary minus 3, powers 4,
/// numbers, bands and function calls 5.
fn precedence(n: &Node) -> u8 {
    match n {
        Node::Binary(BinOp::Add | BinOp::Sub, ..) => 1,
        Node::Binary(BinOp::Mul | BinOp::Div, ..) => 2,
        Node::Unary(Func1::Neg, _) => 3,
        Node::Binary(BinOp::Pow, ..) => 4,
        _ => 5,
    }
}

fn format_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        // Debug prints the shortest text that parses back to the same value, with an exponent
        // for very large or small numbers.
        format!("{v:?}")
    }
}

impl fmt::Display for Expression {
    /// A canonical text with the fewest parentheses that keep the structure; it parses back to
    /// an equal expression.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Built bottom-up (post-order), so printing never recurses.
        let mut text: Vec<String> = Vec::with_capacity(self.nodes.len());
        let wrap = |s: &mut Vec<String>, i: usize, paren: bool| -> String {
            let t = s.get_mut(i).map(std::mem::take).unwrap_or_default();
            if paren {
                format!("({t})")
            } else {
                t
            }
        };
        let prec = |i: usize| self.nodes.get(i).map_or(5, precedence);
        for n in &self.nodes {
            let s = match n {
                Node::Num(v) => format_number(*v),
                Node::Var(i) => self.variables.get(*i).cloned().unwrap_or_default(),
                Node::Unary(Func1::Neg, a) => format!("-{}", wrap(&mut text, *a, prec(*a) < 3)),
                Node::Unary(func, a) => {
                    let name = match func {
                        Func1::Abs => "abs",
                        Func1::Sqrt => "sqrt",
                        Func1::Exp => "exp",
                        Func1::Log => "log",
                        Func1::Neg => "-",
                    };
                    format!("{name}({})", wrap(&mut text, *a, false))
                }
                Node::Binary(BinOp::Min, a, b) => {
                    format!("min({}, {})", wrap(&mut text, *a, false), wrap(&mut text, *b, false))
                }
                Node::Binary(BinOp::Max, a, b) => {
                    format!("max({}, {})", wrap(&mut text, *a, false), wrap(&mut text, *b, false))
                }
                Node::Clamp(x, lo, hi) => format!(
                    "clamp({}, {}, {})",
                    wrap(&mut text, *x, false),
                    wrap(&mut text, *lo, false),
                    wrap(&mut text, *hi, false)
                ),
                Node::Binary(BinOp::Pow, a, b) => {
                    // The base is an atom; the exponent is anything unary or tighter.
                    let l = wrap(&mut text, *a, prec(*a) < 5);
                    let r = wrap(&mut text, *b, prec(*b) < 3);
                    format!("{l} ^ {r}")
                }
                Node::Binary(op, a, b) => {
                    let p = precedence(n);
                    let sym = match op {
                        BinOp::Add => "+",
                        BinOp::Sub => "-",
                        BinOp::Mul => "*",
                        _ => "/",
                    };
                    let l = wrap(&mut text, *a, prec(*a) < p);
                    let r = wrap(&mut text, *b, prec(*b) <= p);
                    format!("{l} {sym} {r}")
                }
            };
            text.push(s);
        }
        f.write_str(text.last().map_or("", String::as_str))
    }
}

/// The well-known spectral indices that [`named_index`] knows.
pub const NAMED: &[&str] = &["ndvi", "ndwi", "evi", "savi", "gndvi", "ndmi", "nbr", "ndbi"];

/// The expression of a well-known index over common band names (`blue`, `green`, `red`, `nir`,
/// `swir16`, `swir22`), by case-insensitive name.
pub fn named_index(name: &str) -> Option<&'static str> {
    Some(match name.to_ascii_lowercase().as_str() {
        "ndvi" => "(nir - red) / (nir + red)",
        // McFeeters (1996): open water is positive.
        "ndwi" => "(green - nir) / (green + nir)",
        "evi" => "2.5 * (nir - red) / (nir + 6 * red - 7.5 * blue + 1)",
        "savi" => "1.5 * (nir - red) / (nir + red + 0.5)",
        "gndvi" => "(nir - green) / (nir + green)",
        "ndmi" => "(nir - swir16) / (nir + swir16)",
        "nbr" => "(nir - swir22) / (nir + swir22)",
        "ndbi" => "(swir16 - nir) / (swir16 + nir)",
        _ => return None,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_recycled() {
        let e = Expression::parse("(a - b) / (a + b) * 2 + c * c - d").unwrap();
        let p = Program::compile(&e.nodes);
        assert!(p.slots <= 3, "{p:?}");
    }
}
