//! Fuzz target on the stable toolchain: replays `fuzz/corpus/eo_expr/` and then mutates it (see
//! meridian-fuzzing). The same body runs under cargo-fuzz in `fuzz/fuzz_targets/eo_expr.rs`.

use meridian_eo::expr::Expression;
use meridian_fuzzing::Target;

const EXPR_WORDS: &[&str] = &[
    "nir", "red", "B8", "(", ")", "((((", "))))", "+", "-", "*", "/", "^", "**", ",", "abs(", "sqrt(", "exp(", "log(",
    "min(", "max(", "clamp(", "1e-3", ".5", "1e308", "0", "-", "--", "1e", "_", "é",
];

fn run_expression(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(e) = Expression::parse(text) else { return };
    // What parses prints back to something that parses to the same expression.
    let printed = e.to_string();
    let again = Expression::parse(&printed).unwrap_or_else(|err| panic!("{printed:?} does not parse back: {err}"));
    assert_eq!(again, e, "{text:?} printed as {printed:?}");
    let n = 7;
    let columns: Vec<Vec<f32>> = (0..e.variables().len())
        .map(|k| (0..n).map(|i| [0.0, 1.0, -1.0, 0.5, f32::NAN, 1e30, -3.0][(i + k) % 7]).collect())
        .collect();
    let inputs: Vec<&[f32]> = columns.iter().map(Vec::as_slice).collect();
    let mut out = vec![0.0; n];
    e.eval_slices(&inputs, &mut out);
    assert!(out.iter().all(|v| v.is_finite() || v.is_nan()), "{text:?}: {out:?}");
}

#[test]
fn fuzz_eo_expr() {
    Target::new("eo_expr").dictionary(EXPR_WORDS).max_len(8192).run(run_expression);
}
