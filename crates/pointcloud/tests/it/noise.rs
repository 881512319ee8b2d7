//! Noise classification: injected spikes and pits found and split into high and low noise, a clean
//! plane left alone, agreement with a brute-force reference, and cancellation.

use crate::Lcg;
use meridian_pointcloud::noise::{Noise, NoiseError, NoiseMethod, HIGH_NOISE, LOW_NOISE};
use std::sync::Mutex;

const METHODS: [NoiseMethod; 3] = [NoiseMethod::Statistical, NoiseMethod::Radius, NoiseMethod::Both];

/// A tilted plane, `side` × `side` points `spacing` apart, jittered by up to `jitter` in plan and
/// a tenth of it in height.
fn plane(side: usize, spacing: f64, jitter: f64, rng: &mut Lcg) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let (mut x, mut y, mut z) = (vec![], vec![], vec![]);
    for i in 0..side {
        for j in 0..side {
            let px = i as f64 * spacing + jitter * rng.signed();
            let py = j as f64 * spacing + jitter * rng.signed();
            x.push(500_000.0 + px);
            y.push(5_400_000.0 + py);
            z.push(250.0 + 0.08 * px - 0.03 * py + 0.1 * jitter * rng.signed());
        }
    }
    (x, y, z)
}

#[test]
fn spikes_and_pits_are_high_and_low_noise() {
    let mut rng = Lcg(7);
    let (mut x, mut y, mut z) = plane(60, 0.5, 0.1, &mut rng);
    let clean = x.len();
    // Twelve points above the plane and twelve below, 2.5 m apart or more, 6 to 30 m off it.
    let mut expected = vec![0u8; clean];
    for k in 0..24 {
        let (i, j) = (3 + (k % 6) * 9, 3 + (k / 6) * 12);
        let (px, py) = (i as f64 * 0.5 + 0.25, j as f64 * 0.5 + 0.25);
        let off = 6.0 + 24.0 * rng.unit();
        let above = k % 2 == 0;
        x.push(500_000.0 + px);
        y.push(5_400_000.0 + py);
        z.push(250.0 + 0.08 * px - 0.03 * py + if above { off } else { -off });
        expected.push(if above { HIGH_NOISE } else { LOW_NOISE });
    }
    for method in METHODS {
        let classes = Noise { method, ..Noise::default() }.classify(&x, &y, &z, &|_| true).unwrap();
        assert_eq!(classes, expected, "{method:?}");
    }
}

#[test]
fn a_clean_plane_has_no_noise() {
    let mut rng = Lcg(11);
    // Jittered: no point is isolated.
    let (x, y, z) = plane(80, 0.5, 0.15, &mut rng);
    let radius = Noise { method: NoiseMethod::Radius, ..Noise::default() };
    assert!(radius.classify(&x, &y, &z, &|_| true).unwrap().iter().all(|&c| c == 0));
    // Regular: every inner point has the same neighbourhood, so the statistical test flags none
    // of them; only the outer ring, whose neighbourhoods are half empty, may stand out (as in
    // PDAL: it is how the test works at the edge of a sample).
    let side = 80;
    let (x, y, z) = plane(side, 0.5, 0.0, &mut rng);
    let classes = Noise::default().classify(&x, &y, &z, &|_| true).unwrap();
    for (k, &c) in classes.iter().enumerate() {
        let (i, j) = (k / side, k % side);
        let outer = i == 0 || j == 0 || i == side - 1 || j == side - 1;
        assert!(c == 0 || outer, "point ({i}, {j}) is noise");
    }
    assert!(radius.classify(&x, &y, &z, &|_| true).unwrap().iter().all(|&c| c == 0));
}

/// PDAL's definitions, by brute force.
fn brute_force(noise: &Noise, x: &[f64], y: &[f64], z: &[f64]) -> Vec<u8> {
    let n = x.len();
    let d3 = |a: usize, b: usize| ((x[a] - x[b]).powi(2) + (y[a] - y[b]).powi(2) + (z[a] - z[b]).powi(2)).sqrt();
    let mut flagged = vec![false; n];
    if matches!(noise.method, NoiseMethod::Statistical | NoiseMethod::Both) {
        let mean: Vec<f64> = (0..n)
            .map(|i| {
                let mut d: Vec<f64> = (0..n).filter(|&j| j != i).map(|j| d3(i, j)).collect();
                d.sort_by(f64::total_cmp);
                d[..noise.mean_k].iter().sum::<f64>() / noise.mean_k as f64
            })
            .collect();
        let m = mean.iter().sum::<f64>() / n as f64;
        let sd = (mean.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n as f64 - 1.0)).sqrt();
        for i in 0..n {
            flagged[i] |= mean[i] > m + noise.multiplier * sd;
        }
    }
    if matches!(noise.method, NoiseMethod::Radius | NoiseMethod::Both) {
        for (i, flag) in flagged.iter_mut().enumerate() {
            let near = (0..n).filter(|&j| j != i && d3(i, j) <= noise.radius).count();
            *flag |= near < noise.min_k;
        }
    }
    (0..n)
        .map(|i| {
            if !flagged[i] {
                return 0;
            }
            let mut inliers: Vec<usize> = (0..n).filter(|&j| !flagged[j]).collect();
            let plan = |j: usize| (x[i] - x[j]).powi(2) + (y[i] - y[j]).powi(2);
            inliers.sort_by(|&a, &b| plan(a).total_cmp(&plan(b)));
            if inliers.is_empty() {
                return HIGH_NOISE;
            }
            let mut h: Vec<f64> = inliers[..noise.mean_k.min(inliers.len())].iter().map(|&j| z[j]).collect();
            h.sort_by(f64::total_cmp);
            let k = h.len();
            let median = if k % 2 == 1 { h[k / 2] } else { (h[k / 2 - 1] + h[k / 2]) / 2.0 };
            if z[i] < median {
                LOW_NOISE
            } else {
                HIGH_NOISE
            }
        })
        .collect()
}

#[test]
fn agrees_with_brute_force() {
    let mut rng = Lcg(3);
    // Uneven ground with some vegetation and a few strays, 700 points on 20 m × 20 m.
    let (mut x, mut y, mut z) = (vec![], vec![], vec![]);
    for k in 0..700 {
        let (px, py) = (20.0 * rng.unit(), 20.0 * rng.unit());
        let ground = (px * 0.3).sin() + 0.05 * py;
        let h = match k % 10 {
            0..=5 => 0.05 * rng.signed(),
            6..=8 => 8.0 * rng.unit(),
            _ => 30.0 * rng.signed(),
        };
        x.push(px);
        y.push(py);
        z.push(ground + h);
    }
    for method in METHODS {
        for noise in [
            Noise { method, ..Noise::default() },
            Noise { method, mean_k: 5, multiplier: 1.0, radius: 1.5, min_k: 3, ..Noise::default() },
        ] {
            let got = noise.classify(&x, &y, &z, &|_| true).unwrap();
            let want = brute_force(&noise, &x, &y, &z);
            assert!(got.iter().any(|&c| c != 0), "{noise:?} finds some noise");
            assert_eq!(got, want, "{noise:?}");
        }
    }
}

#[test]
fn agrees_with_brute_force_on_small_clouds() {
    // Small clouds, where the details of the definitions (sample standard deviation, the point
    // itself left out, fewer inliers than mean_k) decide points near the thresholds.
    let mut rng = Lcg(17);
    let mut noisy = 0;
    for _ in 0..200 {
        let n = 12 + (rng.unit() * 20.0) as usize;
        let x: Vec<f64> = (0..n).map(|_| 4.0 * rng.unit()).collect();
        let y: Vec<f64> = (0..n).map(|_| 4.0 * rng.unit()).collect();
        let z: Vec<f64> = (0..n).map(|_| 3.0 * rng.unit()).collect();
        for method in METHODS {
            let noise = Noise { method, multiplier: 0.5 + rng.unit(), ..Noise::default() };
            let got = noise.classify(&x, &y, &z, &|_| true).unwrap();
            assert_eq!(got, brute_force(&noise, &x, &y, &z), "{noise:?} on {x:?} {y:?} {z:?}");
            noisy += got.iter().filter(|&&c| c != 0).count();
        }
    }
    assert!(noisy > 100);
}

#[test]
fn progress_is_reported_and_cancellation_stops() {
    let mut rng = Lcg(5);
    let (x, y, z) = plane(200, 0.5, 0.1, &mut rng);
    let seen = Mutex::new(Vec::new());
    let record = |f: f64| {
        seen.lock().unwrap().push(f);
        true
    };
    Noise { method: NoiseMethod::Both, ..Noise::default() }.classify(&x, &y, &z, &record).unwrap();
    let seen = seen.into_inner().unwrap();
    assert!(seen.len() > 4, "{seen:?}");
    assert!(seen.windows(2).all(|w| w[0] <= w[1]) && seen.iter().all(|f| (0.0..=1.0).contains(f)), "{seen:?}");
    assert_eq!(seen.last(), Some(&1.0));

    let calls = Mutex::new(0);
    let stop_after_two = |_: f64| {
        let mut c = calls.lock().unwrap();
        *c += 1;
        *c <= 2
    };
    assert_eq!(Noise::default().classify(&x, &y, &z, &stop_after_two), Err(NoiseError::Cancelled));
    assert_eq!(*calls.lock().unwrap(), 3);
}

#[test]
fn the_result_does_not_depend_on_the_number_of_threads() {
    let mut rng = Lcg(13);
    let (mut x, y, mut z) = plane(150, 0.5, 0.2, &mut rng);
    for k in 0..2_000 {
        x[k * 11] += 3.0 * rng.signed();
        z[k * 11] += 20.0 * rng.signed();
    }
    let noise = Noise { method: NoiseMethod::Both, ..Noise::default() };
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| noise.classify(&x, &y, &z, &|_| true)).unwrap()
    };
    let one = run(1);
    assert!(one.iter().filter(|&&c| c != 0).count() > 500);
    assert_eq!(one, run(4));
}
