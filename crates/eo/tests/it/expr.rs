//! The expression parser and evaluator.

use meridian_eo::expr::{named_index, ExprError, Expression, Limits, NAMED};

fn eval(text: &str, inputs: &[&[f32]]) -> Vec<f32> {
    let e = Expression::parse(text).unwrap();
    let n = inputs.first().map_or(1, |s| s.len());
    let mut out = vec![0.0; n];
    e.eval_slices(inputs, &mut out);
    out
}

fn scalar(text: &str) -> f32 {
    eval(text, &[])[0]
}

fn error(text: &str) -> ExprError {
    Expression::parse(text).unwrap_err()
}

#[test]
fn precedence_and_associativity() {
    assert_eq!(scalar("1 + 2 * 3"), 7.0);
    assert_eq!(scalar("(1 + 2) * 3"), 9.0);
    assert_eq!(scalar("10 - 4 - 3"), 3.0);
    assert_eq!(scalar("8 / 4 / 2"), 1.0);
    assert_eq!(scalar("2 ^ 3 ^ 2"), 512.0);
    assert_eq!(scalar("2 ** 3 ** 2"), 512.0);
    assert_eq!(scalar("-2 ^ 2"), -4.0);
    assert_eq!(scalar("(-2) ^ 2"), 4.0);
    assert_eq!(scalar("2 ^ -1"), 0.5);
    assert_eq!(scalar("- -3"), 3.0);
    assert_eq!(scalar("+3 - -3"), 6.0);
    assert_eq!(scalar("1 + 2 * 3 ^ 2"), 19.0);
    assert_eq!(scalar("2 * -3"), -6.0);
}

#[test]
fn numbers() {
    assert_eq!(scalar("1e-3"), 1e-3);
    assert_eq!(scalar(".5"), 0.5);
    assert_eq!(scalar("1."), 1.0);
    assert_eq!(scalar("2.5E+2"), 250.0);
    assert_eq!(scalar("007"), 7.0);
}

#[test]
fn functions() {
    assert_eq!(scalar("abs(-2.5)"), 2.5);
    assert_eq!(scalar("sqrt(16)"), 4.0);
    assert_eq!(scalar("exp(0)"), 1.0);
    assert_eq!(scalar("log(exp(2))"), 2.0);
    assert_eq!(scalar("min(3, -1)"), -1.0);
    assert_eq!(scalar("max(3, -1)"), 3.0);
    assert_eq!(scalar("clamp(5, 0, 1)"), 1.0);
    assert_eq!(scalar("clamp(-5, 0, 1)"), 0.0);
    assert_eq!(scalar("clamp(0.25, 0, 1)"), 0.25);
    assert_eq!(scalar("max(min(2, 3), clamp(1, 0, 0.5)) * 2"), 4.0);
}

#[test]
fn variables_are_distinct_in_first_use_order() {
    let e = Expression::parse("(nir - red) / (nir + red) + B8_a * nir").unwrap();
    assert_eq!(e.variables(), ["nir", "red", "B8_a"]);
    assert!(Expression::parse("1 + 2").unwrap().variables().is_empty());
}

#[test]
fn errors_name_what_and_where() {
    let e = error("(a + b))");
    assert_eq!((e.message.as_str(), e.position), ("unexpected ')'", 7));
    assert_eq!(e.to_string(), "unexpected ')' at 7");
    let e = error("foo(a)");
    assert!(e.message.starts_with("unknown function 'foo'"), "{e}");
    assert_eq!(e.position, 0);
    let e = error("a +");
    assert_eq!((e.message.as_str(), e.position), ("expected an operand", 3));
    let e = error("a + * b");
    assert_eq!(e.position, 4);
    assert!(e.message.contains("'*'") && e.message.contains("expected an operand"), "{e}");
    let e = error("2 * min(a)");
    assert_eq!((e.message.as_str(), e.position), ("min takes 2 arguments, not 1", 4));
    let e = error("sqrt(a, b)");
    assert_eq!(e.message, "sqrt takes 1 argument, not 2");
    let e = error("a $ b");
    assert_eq!((e.message.as_str(), e.position), ("unexpected character '$'", 2));
    let e = error("nir - 1e");
    assert_eq!(e.position, 6);
    assert!(e.message.contains("malformed number"), "{e}");
    let e = error("(a + b");
    assert_eq!(e.position, 6);
    assert!(e.message.contains("expected ')'"), "{e}");
    assert_eq!(error("").message, "expected an operand: the expression is empty");
    assert_eq!(error("   ").position, 0);
    assert_eq!(error("()").position, 1);
    assert_eq!(error("a b").position, 2);
    assert_eq!(error("2nir").position, 1);
    assert!(error("1e999").message.contains("out of range"));
    assert!(error("sqrt + 1").message.contains("is a function"));
    assert_eq!(error("max(a,").position, 6);
    assert_eq!(error("a é").position, 2);
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    for depth in [65, 10_000] {
        let text = format!("{}a{}", "(".repeat(depth), ")".repeat(depth));
        let e = Expression::parse_with(&text, &Limits { max_len: usize::MAX, ..Limits::default() }).unwrap_err();
        assert!(e.message.contains("nested more than 64 levels"), "{e}");
    }
    let e = Expression::parse(&format!("{}a", "-".repeat(10_000))).unwrap_err();
    assert!(e.message.contains("longer than 4096 bytes"), "{e}");
    let e =
        Expression::parse_with(&format!("{}a", "-".repeat(10_000)), &Limits { max_len: 100_000, ..Limits::default() })
            .unwrap_err();
    assert!(e.message.contains("nested"), "{e}");
    let e = Expression::parse(&"2^".repeat(100)).unwrap_err();
    assert!(e.message.contains("nested"), "{e}");
    // Within the limit, nesting is fine.
    let text = format!("{}a{}", "(".repeat(60), ")".repeat(60));
    assert_eq!(Expression::parse(&text).unwrap().to_string(), "a");
}

#[test]
fn size_limits() {
    let long = vec!["a"; 257].join("+"); // 513 nodes
    let e = Expression::parse(&long).unwrap_err();
    assert!(e.message.contains("more than 512"), "{e}");
    assert!(Expression::parse(&vec!["a"; 256].join("+")).is_ok());
    let e = Expression::parse(&format!("a + {}", "1".repeat(5000))).unwrap_err();
    assert_eq!(e.position, 4096);
    let tight = Limits { max_len: 10, max_nodes: 3, max_depth: 2 };
    assert!(Expression::parse_with("a + b", &tight).is_ok());
    assert!(Expression::parse_with("a + b + c", &tight).is_err());
    assert!(Expression::parse_with("((a))", &tight).is_err());
    assert!(Expression::parse_with("a+b       c", &tight).is_err());
    // A long flat chain evaluates and prints without recursion.
    let chain = vec!["x"; 256].join(" - ");
    let e = Expression::parse(&chain).unwrap();
    let mut out = [0.0];
    e.eval_slices(&[&[1.0]], &mut out);
    assert_eq!(out[0], -254.0);
    assert_eq!(e.to_string(), chain);
}

#[test]
fn display_is_canonical_and_parses_back() {
    let cases = [
        ("((nir - red)) / ((nir + red))", "(nir - red) / (nir + red)"),
        ("a - (b - c)", "a - (b - c)"),
        ("(a - b) - c", "a - b - c"),
        ("a / (b * c)", "a / (b * c)"),
        ("(a * b) / c", "a * b / c"),
        ("(-a)^2", "(-a) ^ 2"),
        ("-a**2", "-a ^ 2"),
        ("(a^b)^c", "(a ^ b) ^ c"),
        ("a^(b^c)", "a ^ b ^ c"),
        ("a^(-b)", "a ^ -b"),
        ("a^(b+c)", "a ^ (b + c)"),
        ("-(a+b)", "-(a + b)"),
        ("a - -b", "a - -b"),
        ("+a", "a"),
        ("2.5*(nir-red)/(nir+6*red-7.5*blue+1)", "2.5 * (nir - red) / (nir + 6 * red - 7.5 * blue + 1)"),
        ("1e-3 + .5 + 1e300 + 3e-300", "0.001 + 0.5 + 1e300 + 3e-300"),
        ("clamp(min(a,b), -1, max(1, abs(c)))", "clamp(min(a, b), -1, max(1, abs(c)))"),
        ("sqrt(exp(log(x)))", "sqrt(exp(log(x)))"),
    ];
    for (text, canonical) in cases {
        let e = Expression::parse(text).unwrap();
        assert_eq!(e.to_string(), canonical, "{text}");
        let back = Expression::parse(canonical).unwrap();
        assert_eq!(back, e, "{text}");
        assert_eq!(back.to_string(), canonical);
    }
}

#[test]
fn rename_maps_common_names_to_asset_keys() {
    let e = Expression::parse(named_index("ndvi").unwrap()).unwrap();
    let keys = |name: &str| match name {
        "red" => Some("B7".to_owned()),
        "nir" => Some("B8".to_owned()),
        _ => None,
    };
    let r = e.rename(&keys);
    assert_eq!(r.variables(), ["B8", "B7"]);
    assert_eq!(r.to_string(), "(B8 - B7) / (B8 + B7)");
    // Two names for one band become one variable.
    let m = Expression::parse("a - b").unwrap().rename(&|_| Some("x".into()));
    assert_eq!(m.variables(), ["x"]);
    let mut out = [1.0];
    m.eval_slices(&[&[3.0]], &mut out);
    assert_eq!(out[0], 0.0);
    // Unmapped names stay.
    assert_eq!(Expression::parse("q + red").unwrap().rename(&keys).variables(), ["q", "B7"]);
}

#[test]
fn eval_matches_pixel_by_pixel_arithmetic_across_chunks() {
    // 3000 values: not a multiple of the chunk size.
    let n = 3000;
    let nir: Vec<f32> = (0..n).map(|i| ((i * 37) % 251) as f32).collect();
    let red: Vec<f32> = (0..n).map(|i| ((i * 91) % 239) as f32).collect();
    let blue: Vec<f32> = (0..n).map(|i| ((i * 13) % 97) as f32 * 0.5).collect();
    let e = Expression::parse(named_index("evi").unwrap()).unwrap();
    assert_eq!(e.variables(), ["nir", "red", "blue"]);
    let mut out = vec![0.0; n];
    e.eval_slices(&[&nir, &red, &blue], &mut out);
    let mut checked = 0;
    for i in 0..n {
        let (a, r, b) = (nir[i], red[i], blue[i]);
        let want = 2.5f32 * (a - r) / (a + 6.0f32 * r - 7.5f32 * b + 1.0f32);
        if want.is_finite() {
            assert_eq!(out[i].to_bits(), want.to_bits(), "pixel {i}");
            checked += 1;
        } else {
            assert!(out[i].is_nan(), "pixel {i}: {}", out[i]);
        }
    }
    assert!(checked > 2900);
}

#[test]
fn non_finite_results_are_nan() {
    let a = [1.0f32, 0.0, -1.0, 4.0];
    let b = [0.0f32, 0.0, 0.0, 2.0];
    let out = eval("a / b", &[&a, &b]);
    assert!(out[..3].iter().all(|v| v.is_nan()), "{out:?}");
    assert_eq!(out[3], 2.0);
    let out = eval("sqrt(a)", &[&a]);
    assert!(out[2].is_nan());
    assert_eq!(out[3], 2.0);
    let out = eval("log(a)", &[&a]);
    assert!(out[1].is_nan() && out[2].is_nan());
    let out = eval("exp(a * 1000)", &[&a]);
    assert!(out[0].is_nan(), "overflow to infinity becomes NaN");
    let out = eval("min(a / b, 5)", &[&a, &b]);
    assert!(out[1].is_nan(), "min propagates NaN as numpy's minimum does");
    let nan = [f32::NAN, 1.0];
    assert!(eval("x * 0", &[&nan])[0].is_nan());
}

#[test]
fn mismatched_inputs_give_nan_not_a_panic() {
    let e = Expression::parse("a + b").unwrap();
    let mut out = vec![0.0; 4];
    e.eval_slices(&[&[1.0; 4]], &mut out);
    assert!(out.iter().all(|v| v.is_nan()));
    let mut out = vec![0.0; 4];
    e.eval_slices(&[&[1.0; 4], &[1.0; 3]], &mut out);
    assert!(out.iter().all(|v| v.is_nan()));
    let mut empty: Vec<f32> = Vec::new();
    e.eval_slices(&[&[], &[]], &mut empty);
}

#[test]
fn constant_and_single_band_expressions() {
    let x = [1.0f32, 2.0, 3.0];
    assert_eq!(eval("x", &[&x]), x);
    let e = Expression::parse("2 * 3").unwrap();
    let mut out = vec![0.0; 5];
    e.eval_slices(&[], &mut out);
    assert_eq!(out, [6.0; 5]);
}

#[test]
fn named_indices_parse_over_common_band_names() {
    let common = ["blue", "green", "red", "nir", "swir16", "swir22"];
    for name in NAMED {
        let text = named_index(name).unwrap();
        let e = Expression::parse(text).unwrap();
        assert!(e.variables().iter().all(|v| common.contains(&v.as_str())), "{name}: {:?}", e.variables());
        assert_eq!(named_index(&name.to_uppercase()), Some(text));
    }
    assert_eq!(named_index("ndvi"), Some("(nir - red) / (nir + red)"));
    assert_eq!(named_index("ndwi"), Some("(green - nir) / (green + nir)"));
    assert_eq!(named_index("nope"), None);
    let ndvi = Expression::parse(named_index("ndvi").unwrap()).unwrap();
    let mut out = [0.0];
    ndvi.eval_slices(&[&[0.5], &[0.1]], &mut out);
    assert_eq!(out[0], (0.5f32 - 0.1) / (0.5f32 + 0.1));
}
