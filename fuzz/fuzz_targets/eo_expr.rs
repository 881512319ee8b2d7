#![no_main]

use libfuzzer_sys::fuzz_target;
use meridian_eo::expr::Expression;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(e) = Expression::parse(text) else { return };
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
    assert!(out.iter().all(|v| v.is_finite() || v.is_nan()));
});
