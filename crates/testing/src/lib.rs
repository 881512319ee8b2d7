//! Test support: a fuzz runner for the stable toolchain, used by the engine crates' `fuzz`
//! tests, and [`tools`], the rule for tests that drive external tools.
//!
//! `cargo fuzz` (nightly, `fuzz/`) is for long runs; this runner lets `cargo test` replay every
//! corpus file under `fuzz/corpus/<target>/` and then try a fixed number of new inputs made by
//! mutating the corpus, deterministically from a seed, so CI finds regressions on stable.
//! A target fails when it panics or when one input takes longer than the time budget
//! (a parser that backtracks or allocates without bound shows up as slow before it shows up as
//! a crash). A failing input is written to `target/fuzz-failures/<target>/` to become a corpus file.
//!
//! Environment: `MERIDIAN_FUZZ_ITERATIONS` (new inputs per target, default 2,000),
//! `MERIDIAN_FUZZ_SEED` (default fixed, so a run is reproducible), `MERIDIAN_FUZZ_BUDGET_MS`
//! (time allowed per input, default 2,000 ms).

pub mod tools;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// One fuzz target: its name (the corpus folder), a dictionary of tokens to splice in, limits.
pub struct Target {
    name: String,
    dictionary: Vec<Vec<u8>>,
    iterations: u64,
    seed: u64,
    budget: Duration,
    max_len: usize,
}

impl Target {
    /// A target whose corpus is `fuzz/corpus/<name>/` at the workspace root.
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            dictionary: Vec::new(),
            iterations: env_u64("MERIDIAN_FUZZ_ITERATIONS").unwrap_or(2_000),
            seed: env_u64("MERIDIAN_FUZZ_SEED").unwrap_or(0x6d65_7269_6469_616e),
            budget: Duration::from_millis(env_u64("MERIDIAN_FUZZ_BUDGET_MS").unwrap_or(2_000)),
            max_len: 1 << 20,
        }
    }

    /// Tokens (keywords, magic numbers, operators) that mutations insert or overwrite with.
    pub fn dictionary<I, T>(mut self, tokens: I) -> Self
    where
        I: IntoIterator<Item = T>,
        T: AsRef<[u8]>,
    {
        self.dictionary.extend(tokens.into_iter().map(|t| t.as_ref().to_vec()));
        self
    }

    /// Overrides the number of new inputs (the environment still wins when set).
    pub fn iterations(mut self, n: u64) -> Self {
        if env_u64("MERIDIAN_FUZZ_ITERATIONS").is_none() {
            self.iterations = n;
        }
        self
    }

    /// Largest input the mutator makes.
    pub fn max_len(mut self, n: usize) -> Self {
        self.max_len = n.max(1);
        self
    }

    /// The corpus folder of this target.
    pub fn corpus_dir(&self) -> PathBuf {
        workspace_root().join("fuzz").join("corpus").join(&self.name)
    }

    /// Replays the corpus, then runs the mutated inputs; panics naming the first failing input.
    pub fn run(self, f: impl Fn(&[u8])) {
        let corpus = read_corpus(&self.corpus_dir());
        assert!(!corpus.is_empty(), "fuzz target {}: no corpus files in {}", self.name, self.corpus_dir().display());
        for (path, data) in &corpus {
            self.check(&f, data, &format!("corpus file {}", path.display()));
        }
        let seeds: Vec<Vec<u8>> = corpus.into_iter().map(|(_, d)| d).collect();
        let mut rng = Rng(self.seed ^ fnv(self.name.as_bytes()));
        for i in 0..self.iterations {
            let base = &seeds[rng.below(seeds.len())];
            let other = &seeds[rng.below(seeds.len())];
            let mut data = base.clone();
            let rounds = 1 + rng.below(4);
            for _ in 0..rounds {
                self.mutate(&mut data, other, &mut rng);
            }
            data.truncate(self.max_len);
            self.check(&f, &data, &format!("mutation {i}"));
        }
    }

    fn check(&self, f: &impl Fn(&[u8]), data: &[u8], what: &str) {
        let started = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| f(data)));
        let took = started.elapsed();
        let failure = match outcome {
            Err(panic) => Some(format!("panicked: {}", panic_message(&panic))),
            Ok(()) if took > self.budget => {
                Some(format!("took {} ms (budget {} ms)", took.as_millis(), self.budget.as_millis()))
            }
            Ok(()) => None,
        };
        if let Some(failure) = failure {
            let saved = save_failure(&self.name, data);
            panic!(
                "fuzz target {} failed on {what} ({} bytes, saved to {}): {failure}",
                self.name,
                data.len(),
                saved.display()
            );
        }
    }

    fn mutate(&self, data: &mut Vec<u8>, other: &[u8], rng: &mut Rng) {
        const INTERESTING: &[u64] = &[
            0,
            1,
            0x7f,
            0x80,
            0xff,
            0x7fff,
            0x8000,
            0xffff,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_ffff,
            u64::MAX,
            200_000,
            1 << 31,
        ];
        let choice = rng.below(10);
        let len = data.len();
        match choice {
            0 if len > 0 => {
                let i = rng.below(len);
                data[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                data[i] = rng.next() as u8;
            }
            2 if len > 0 => {
                let width = [1usize, 2, 4, 8][rng.below(4)];
                let value = INTERESTING[rng.below(INTERESTING.len())];
                let bytes = if rng.below(2) == 0 { value.to_le_bytes() } else { value.to_be_bytes() };
                let at = rng.below(len);
                for k in 0..width.min(len - at) {
                    data[at + k] = if rng.below(2) == 0 { bytes[k] } else { bytes[8 - width + k] };
                }
            }
            3 if len > 0 => {
                let at = rng.below(len);
                let n = 1 + rng.below((len - at).min(64));
                data.drain(at..at + n);
            }
            4 if len > 0 => {
                let at = rng.below(len);
                let n = 1 + rng.below((len - at).min(64));
                let copy = data[at..at + n].to_vec();
                let to = rng.below(data.len() + 1);
                let cap = if rng.below(8) == 0 { 256 } else { 4 };
                let times = 1 + rng.below(cap);
                for _ in 0..times {
                    data.splice(to..to, copy.iter().copied());
                }
            }
            5 if !self.dictionary.is_empty() => {
                let token = &self.dictionary[rng.below(self.dictionary.len())];
                let to = rng.below(data.len() + 1);
                data.splice(to..to, token.iter().copied());
            }
            6 if !other.is_empty() => {
                let cut = rng.below(data.len() + 1);
                let from = rng.below(other.len());
                data.truncate(cut);
                data.extend_from_slice(&other[from..]);
            }
            7 if len > 0 => {
                data.truncate(rng.below(len));
            }
            8 => {
                let to = rng.below(data.len() + 1);
                let n = 1 + rng.below(16);
                let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                data.splice(to..to, bytes);
            }
            _ if !self.dictionary.is_empty() && len > 0 => {
                let token = &self.dictionary[rng.below(self.dictionary.len())];
                let at = rng.below(len);
                let end = (at + token.len()).min(len);
                data.splice(at..end, token.iter().copied());
            }
            _ => {
                data.push(rng.next() as u8);
            }
        }
    }
}

fn read_corpus(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file()).collect())
        .unwrap_or_default();
    files.sort();
    files.into_iter().filter_map(|p| std::fs::read(&p).ok().map(|d| (p, d))).collect()
}

fn save_failure(name: &str, data: &[u8]) -> PathBuf {
    let dir = workspace_root().join("target").join("fuzz-failures").join(name);
    let path = dir.join(format!("{:016x}", fnv(data)));
    let _ = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, data));
    path
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic".to_owned()
    }
}

/// The workspace root: two levels above this crate's manifest.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("..").canonicalize().unwrap_or_else(|_| PathBuf::from("."))
}

fn env_u64(key: &str) -> Option<u64> {
    std::env::var(key).ok()?.trim().parse().ok()
}

fn fnv(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3))
}

/// xorshift64*: small, fast, reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0.max(1);
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_are_reproducible_and_bounded() {
        let t = Target::new("selftest").max_len(64);
        let mut a = b"hello world".to_vec();
        let mut b = a.clone();
        let (mut r1, mut r2) = (Rng(7), Rng(7));
        for _ in 0..500 {
            t.mutate(&mut a, b"other", &mut r1);
            t.mutate(&mut b, b"other", &mut r2);
            a.truncate(64);
            b.truncate(64);
        }
        assert_eq!(a, b);
        assert!(a.len() <= 64);
    }

    #[test]
    #[should_panic(expected = "panicked: boom")]
    fn a_panicking_target_fails_naming_the_input() {
        let t = Target::new("selftest");
        t.check(&|d: &[u8]| assert!(d.is_empty(), "boom"), b"x", "unit");
    }
}
