//! A random forest of CART trees (Breiman 2001): each tree grown on a bootstrap sample, splits
//! chosen by weighted Gini impurity among √features features drawn at each node, grown to a
//! maximum depth or a minimum leaf size; class weights counter imbalance. Deterministic: the same
//! data, parameters and seed give the same forest, whatever the number of threads (each tree has
//! its own generator, seeded from the seed and the tree's number).
//!
//! Splits are searched on binned features (histogram CART, as LightGBM and scikit-learn's
//! `HistGradientBoosting` do): each feature's values are cut at up to [`ForestParams::bins`]
//! quantiles of the training data once, and a node's candidate thresholds are those cuts. A
//! node then costs O(points × features tried) instead of a sort per feature.
//!
//! [`Forest::to_bytes`] writes the trees in a compact little-endian layout (documented there);
//! [`Forest::from_bytes`] checks every count, index and value before using it, so that corrupt
//! bytes are an error and never a panic, an endless loop or a huge allocation.

use rayon::prelude::*;

/// Errors of training a forest or reading one.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ForestError {
    /// The training data are inconsistent (lengths, classes out of range, no samples).
    #[error("invalid training data: {0}")]
    Data(String),
    /// A parameter is out of range.
    #[error("invalid parameter: {0}")]
    Parameter(String),
    /// Serialised trees that are truncated or inconsistent.
    #[error("corrupt forest at byte {at}: {reason}")]
    Corrupt {
        /// Where the problem was found.
        at: usize,
        /// What is wrong.
        reason: String,
    },
}

/// A `Result` of this module.
pub type Result<T, E = ForestError> = std::result::Result<T, E>;

/// How the classes are weighted in the impurity.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum ClassWeights {
    /// Every sample counts 1.
    Uniform,
    /// A class's samples weigh (n / (classes × n_class))^power: 1.0 is scikit-learn's
    /// `balanced`, 0.5 a milder correction.
    Balanced {
        /// The exponent.
        power: f64,
    },
}

/// Training parameters.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ForestParams {
    /// Number of trees.
    pub trees: usize,
    /// Largest depth of a tree (the root is depth 0).
    pub max_depth: usize,
    /// Fewest bootstrap samples in a leaf.
    pub min_samples_leaf: usize,
    /// Features tried per split; `None` for √features.
    pub features_per_split: Option<usize>,
    /// Bootstrap sample size as a fraction of the training set.
    pub sample_fraction: f64,
    /// Most threshold candidates per feature (2 to 255).
    pub bins: usize,
    /// Class weights.
    pub class_weights: ClassWeights,
    /// Seed of the generators.
    pub seed: u64,
}

impl Default for ForestParams {
    fn default() -> Self {
        Self {
            trees: 32,
            max_depth: 14,
            min_samples_leaf: 3,
            features_per_split: None,
            sample_fraction: 1.0,
            bins: 64,
            class_weights: ClassWeights::Balanced { power: 0.5 },
            seed: 0x6d65_7269_6469_616e,
        }
    }
}

/// A node of a tree: a split (`feature < n_features`, go to `child` when the value is at most
/// `threshold`, else `child + 1`) or a leaf (`feature == LEAF`, `child` indexes the leaf table).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Node {
    feature: u16,
    threshold: f32,
    child: u32,
}

const LEAF: u16 = u16::MAX;

/// One tree: nodes (the root first, children always after their parent) and leaf class
/// probabilities, `classes` per leaf, in 1/65,535; `walk` and `depth` are derived from the nodes
/// ([`Tree::new`]) for the descent.
#[derive(Debug, Clone, PartialEq)]
struct Tree {
    nodes: Vec<Node>,
    leaves: Vec<u16>,
    /// The nodes as the descent reads them: a split as it is, a leaf as a step that sends every
    /// value back to the leaf itself. A row can then take `depth` steps down any tree without
    /// asking at each one whether it has arrived.
    walk: Vec<Step>,
    /// Most steps from the root to a leaf.
    depth: usize,
}

/// A node of [`Tree::walk`]: go to `next` when the value of `feature` is at most `threshold`,
/// else `next + 1`. A leaf's threshold is infinite (no value, NaN included, is above it) and
/// its `next` is itself.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Step {
    threshold: f32,
    feature: u32,
    next: u32,
}

impl Tree {
    /// A tree of well-formed `nodes` (children after their parent, within the nodes).
    fn new(nodes: Vec<Node>, leaves: Vec<u16>) -> Self {
        let mut level = vec![0usize; nodes.len()];
        let mut depth = 0;
        for (k, node) in nodes.iter().enumerate() {
            depth = depth.max(level[k]);
            if node.feature != LEAF {
                let (child, below) = (node.child as usize, level[k] + 1);
                for l in &mut level[child..child + 2] {
                    *l = (*l).max(below);
                }
            }
        }
        let walk = nodes
            .iter()
            .enumerate()
            .map(|(k, node)| match node.feature {
                LEAF => Step { threshold: f32::INFINITY, feature: 0, next: k as u32 },
                f => Step { threshold: node.threshold, feature: u32::from(f), next: node.child },
            })
            .collect();
        Self { nodes, leaves, walk, depth }
    }
}

/// A trained forest.
#[derive(Debug, Clone, PartialEq)]
pub struct Forest {
    n_features: usize,
    n_classes: usize,
    trees: Vec<Tree>,
}

/// SplitMix64 (Steele, Lea and Flood 2014): small, fast, good enough for sampling.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`), by Lemire's multiply-shift (bias under 2⁻³²·n).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

impl Forest {
    /// Trains a forest on `x` (row-major, `y.len()` rows of `n_features`) and classes `y` in
    /// `0..n_classes`.
    pub fn train(x: &[f32], y: &[u8], n_features: usize, n_classes: usize, params: &ForestParams) -> Result<Self> {
        let n = y.len();
        if n == 0 || n_features == 0 || x.len() != n * n_features {
            return Err(ForestError::Data(format!("{} values for {n} samples of {n_features} features", x.len())));
        }
        if n_classes == 0 || n_classes > 255 || y.iter().any(|&c| usize::from(c) >= n_classes) {
            return Err(ForestError::Data(format!("classes must be below {n_classes} (at most 255)")));
        }
        if n_features >= usize::from(LEAF) {
            return Err(ForestError::Parameter(format!("{n_features} features")));
        }
        if params.trees == 0 || !(2..=255).contains(&params.bins) || params.min_samples_leaf == 0 {
            return Err(ForestError::Parameter("trees, bins (2–255) and min_samples_leaf must be positive".into()));
        }
        if !(params.sample_fraction > 0.0 && params.sample_fraction <= 1.0) {
            return Err(ForestError::Parameter(format!("sample fraction {}", params.sample_fraction)));
        }
        let mtry = params
            .features_per_split
            .unwrap_or_else(|| (n_features as f64).sqrt().round() as usize)
            .clamp(1, n_features);

        // Bins: column-major bin numbers and each feature's cut values.
        let cuts: Vec<Vec<f32>> = (0..n_features)
            .into_par_iter()
            .map(|f| {
                let mut v: Vec<f32> = (0..n).map(|i| x[i * n_features + f]).filter(|v| !v.is_nan()).collect();
                v.sort_unstable_by(f32::total_cmp);
                let mut c: Vec<f32> =
                    (1..params.bins).filter_map(|b| v.get(b * v.len() / params.bins).copied()).collect();
                c.dedup();
                // The largest value is no cut: nothing would go right.
                if c.last().is_some_and(|&l| Some(&l) == v.last()) {
                    c.pop();
                }
                c
            })
            .collect();
        let binned: Vec<Vec<u8>> = (0..n_features)
            .into_par_iter()
            .map(|f| (0..n).map(|i| cuts[f].partition_point(|&c| c < x[i * n_features + f]) as u8).collect())
            .collect();

        let mut counts = vec![0usize; n_classes];
        for &c in y {
            counts[usize::from(c)] += 1;
        }
        let present = counts.iter().filter(|&&c| c > 0).count() as f64;
        let weights: Vec<f64> = counts
            .iter()
            .map(|&c| match params.class_weights {
                ClassWeights::Uniform => 1.0,
                ClassWeights::Balanced { power } if c > 0 => (n as f64 / (present * c as f64)).powf(power),
                ClassWeights::Balanced { .. } => 0.0,
            })
            .collect();

        let data = TrainData { binned: &binned, cuts: &cuts, y, weights: &weights, n_classes, mtry };
        let trees = (0..params.trees)
            .into_par_iter()
            .map(|t| {
                let mut rng = SplitMix64::new(params.seed ^ (t as u64 + 1).wrapping_mul(0xa076_1d64_78bd_642f));
                let draws = ((n as f64 * params.sample_fraction).round() as usize).max(1);
                let mut sample: Vec<u32> = (0..draws).map(|_| rng.below(n) as u32).collect();
                grow(&data, &mut sample, params, &mut rng)
            })
            .collect();
        Ok(Self { n_features, n_classes, trees })
    }

    /// Number of features a sample must have.
    pub fn n_features(&self) -> usize {
        self.n_features
    }

    /// Number of classes.
    pub fn n_classes(&self) -> usize {
        self.n_classes
    }

    /// Number of trees.
    pub fn n_trees(&self) -> usize {
        self.trees.len()
    }

    /// Class probabilities of one sample (`n_features` values), averaged over the trees, into
    /// `out` (`n_classes` values). A sample shorter than `n_features` or an `out` shorter than
    /// `n_classes` gives all zeros.
    pub fn probabilities(&self, sample: &[f32], out: &mut [f32]) {
        out.fill(0.0);
        if sample.len() < self.n_features || out.len() < self.n_classes {
            return;
        }
        self.probabilities_many(&sample[..self.n_features], self.n_features, &mut out[..self.n_classes]);
    }

    /// [`Forest::probabilities`] of many samples at once: `samples` holds rows of `features`
    /// values (at least the forest's), `out` rows of the forest's classes, one a sample. The
    /// trees are taken one at a time over every row, so that a tree stays in the cache while it
    /// is used; each row adds its trees in the forest's order, so a row's answer does not depend
    /// on the rows beside it.
    pub fn probabilities_many(&self, samples: &[f32], features: usize, out: &mut [f32]) {
        out.fill(0.0);
        let c = self.n_classes;
        if features < self.n_features || features == 0 || c == 0 {
            return;
        }
        let rows = (samples.len() / features).min(out.len() / c);
        // Rows descend a tree LANES at a time, a level each turn: their node reads do not wait
        // on one another. Every row takes the tree's depth in steps (a leaf keeps a row that has
        // arrived where it is), so no step asks whether a row has arrived; the rows of a last,
        // short block repeat its last row and their answers are dropped.
        const LANES: usize = 8;
        for tree in &self.trees {
            if tree.walk.is_empty() {
                continue;
            }
            for first in (0..rows).step_by(LANES) {
                let lanes = LANES.min(rows - first);
                let base: [usize; LANES] = std::array::from_fn(|lane| (first + lane.min(lanes - 1)) * features);
                let mut at = [0usize; LANES];
                for _ in 0..tree.depth {
                    for (a, &b) in at.iter_mut().zip(&base) {
                        let step = tree.walk[*a];
                        let v = samples[b + step.feature as usize];
                        *a = step.next as usize + usize::from(v > step.threshold);
                    }
                }
                for (lane, &a) in at.iter().enumerate().take(lanes) {
                    let r = first + lane;
                    let leaf = tree.nodes[a].child as usize * c;
                    for (o, &p) in out[r * c..(r + 1) * c].iter_mut().zip(&tree.leaves[leaf..leaf + c]) {
                        *o += f32::from(p);
                    }
                }
            }
        }
        let total = (self.trees.len() as f32 * 65_535.0).max(1.0);
        for o in out[..rows * c].iter_mut() {
            *o /= total;
        }
    }

    /// The most probable class of one sample and its probability.
    pub fn predict(&self, sample: &[f32]) -> (usize, f32) {
        let mut p = [0f32; 255];
        let p = &mut p[..self.n_classes];
        self.probabilities(sample, p);
        argmax(p)
    }

    /// The trees in a compact layout, all numbers little-endian:
    ///
    /// ```text
    /// u32 features, u32 classes, u32 trees, then per tree:
    ///   u32 nodes, nodes × (u16 feature, f32 threshold, u32 child)   feature 0xFFFF = leaf
    ///   u32 leaves, leaves × classes × u16 probability in 1/65,535
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::new();
        for v in [self.n_features, self.n_classes, self.trees.len()] {
            b.extend_from_slice(&(v as u32).to_le_bytes());
        }
        for t in &self.trees {
            b.extend_from_slice(&(t.nodes.len() as u32).to_le_bytes());
            for node in &t.nodes {
                b.extend_from_slice(&node.feature.to_le_bytes());
                b.extend_from_slice(&node.threshold.to_le_bytes());
                b.extend_from_slice(&node.child.to_le_bytes());
            }
            b.extend_from_slice(&((t.leaves.len() / self.n_classes.max(1)) as u32).to_le_bytes());
            for p in &t.leaves {
                b.extend_from_slice(&p.to_le_bytes());
            }
        }
        b
    }

    /// Reads trees written by [`Forest::to_bytes`], checking them: every count within the bytes
    /// left, every split feature in range, every child after its parent and in its tree, every
    /// leaf in the leaf table, thresholds not NaN, no bytes left over.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Bytes { b: bytes, at: 0 };
        let n_features = r.u32()? as usize;
        let n_classes = r.u32()? as usize;
        let n_trees = r.u32()? as usize;
        if n_features == 0 || n_features >= usize::from(LEAF) || n_classes == 0 || n_classes > 255 {
            return Err(r.corrupt(format!("{n_features} features, {n_classes} classes")));
        }
        // A tree takes at least a node and a leaf.
        if n_trees == 0 || n_trees > r.left() / (8 + 10 + 2 * n_classes) {
            return Err(r.corrupt(format!("{n_trees} trees")));
        }
        let mut trees = Vec::with_capacity(n_trees);
        for _ in 0..n_trees {
            let n_nodes = r.u32()? as usize;
            if n_nodes == 0 || n_nodes > r.left() / 10 {
                return Err(r.corrupt(format!("{n_nodes} nodes")));
            }
            let mut nodes = Vec::with_capacity(n_nodes);
            for _ in 0..n_nodes {
                nodes.push(Node { feature: r.u16()?, threshold: f32::from_bits(r.u32()?), child: r.u32()? });
            }
            let n_leaves = r.u32()? as usize;
            if n_leaves == 0 || n_leaves > r.left() / (2 * n_classes) {
                return Err(r.corrupt(format!("{n_leaves} leaves")));
            }
            let leaves = (0..n_leaves * n_classes).map(|_| r.u16()).collect::<Result<Vec<u16>>>()?;
            for (k, node) in nodes.iter().enumerate() {
                let child = node.child as usize;
                let ok = if node.feature == LEAF {
                    child < n_leaves
                } else {
                    usize::from(node.feature) < n_features
                        && !node.threshold.is_nan()
                        && child > k
                        && child + 1 < n_nodes
                };
                if !ok {
                    return Err(r.corrupt(format!("node {k} of {n_nodes}: {node:?}")));
                }
            }
            trees.push(Tree::new(nodes, leaves));
        }
        if r.left() != 0 {
            return Err(r.corrupt(format!("{} bytes after the last tree", r.left())));
        }
        Ok(Self { n_features, n_classes, trees })
    }
}

/// The index and value of the largest probability (the first on ties).
pub fn argmax(p: &[f32]) -> (usize, f32) {
    let mut best = (0, f32::NEG_INFINITY);
    for (k, &v) in p.iter().enumerate() {
        if v > best.1 {
            best = (k, v);
        }
    }
    best
}

struct Bytes<'a> {
    b: &'a [u8],
    at: usize,
}

impl Bytes<'_> {
    fn left(&self) -> usize {
        self.b.len() - self.at
    }

    fn corrupt(&self, reason: String) -> ForestError {
        ForestError::Corrupt { at: self.at, reason }
    }

    fn take<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut a = [0u8; N];
        let s = self.b.get(self.at..self.at + N).ok_or_else(|| self.corrupt("truncated".into()))?;
        a.copy_from_slice(s);
        self.at += N;
        Ok(a)
    }

    fn u16(&mut self) -> Result<u16> {
        self.take().map(u16::from_le_bytes)
    }

    fn u32(&mut self) -> Result<u32> {
        self.take().map(u32::from_le_bytes)
    }
}

struct TrainData<'a> {
    binned: &'a [Vec<u8>],
    cuts: &'a [Vec<f32>],
    y: &'a [u8],
    weights: &'a [f64],
    n_classes: usize,
    mtry: usize,
}

/// Grows one tree on the bootstrap `sample`, depth first.
fn grow(d: &TrainData<'_>, sample: &mut [u32], params: &ForestParams, rng: &mut SplitMix64) -> Tree {
    let nc = d.n_classes;
    let mut nodes = vec![Node { feature: LEAF, threshold: 0.0, child: 0 }];
    let mut leaves = Vec::new();
    // (node, start, end, depth) still to split.
    let mut stack = vec![(0usize, 0usize, sample.len(), 0usize)];
    let n_features = d.binned.len();
    let mut order: Vec<usize> = (0..n_features).collect();
    let mut hist = vec![0f64; 256 * nc];
    let mut hist_n = vec![0usize; 256];
    while let Some((node, start, end, depth)) = stack.pop() {
        let idx = &mut sample[start..end];
        let mut total = vec![0f64; nc];
        for &i in idx.iter() {
            let c = usize::from(d.y[i as usize]);
            total[c] += d.weights[c];
        }
        let mut best: Option<(f64, usize, usize)> = None; // (impurity decrease, feature, bin)
        let pure = total.iter().filter(|&&w| w > 0.0).count() <= 1;
        if depth < params.max_depth && idx.len() >= 2 * params.min_samples_leaf && !pure {
            let w_total: f64 = total.iter().sum();
            let parent = gini(&total, w_total);
            for j in 0..d.mtry {
                let pick = j + rng.below(n_features - j);
                order.swap(j, pick);
                let f = order[j];
                let bins = d.cuts[f].len() + 1;
                if bins < 2 {
                    continue;
                }
                hist[..bins * nc].fill(0.0);
                hist_n[..bins].fill(0);
                let col = &d.binned[f];
                for &i in idx.iter() {
                    let b = usize::from(col[i as usize]);
                    let c = usize::from(d.y[i as usize]);
                    hist[b * nc + c] += d.weights[c];
                    hist_n[b] += 1;
                }
                let mut left = vec![0f64; nc];
                let mut right = total.clone();
                let mut n_left = 0usize;
                for b in 0..bins - 1 {
                    n_left += hist_n[b];
                    for c in 0..nc {
                        left[c] += hist[b * nc + c];
                        right[c] -= hist[b * nc + c];
                    }
                    if n_left < params.min_samples_leaf || idx.len() - n_left < params.min_samples_leaf {
                        continue;
                    }
                    let (wl, wr) = (left.iter().sum::<f64>(), right.iter().sum::<f64>());
                    if wl <= 0.0 || wr <= 0.0 {
                        continue;
                    }
                    let gain = parent - (wl * gini(&left, wl) + wr * gini(&right, wr)) / w_total;
                    if gain > 1e-12 && best.is_none_or(|(g, _, _)| gain > g) {
                        best = Some((gain, f, b));
                    }
                }
            }
        }
        match best {
            Some((_, f, b)) => {
                let col = &d.binned[f];
                // Partition: bins up to b to the left.
                let mut split = 0;
                for k in 0..idx.len() {
                    if usize::from(col[idx[k] as usize]) <= b {
                        idx.swap(k, split);
                        split += 1;
                    }
                }
                let child = nodes.len();
                nodes[node] = Node { feature: f as u16, threshold: d.cuts[f][b], child: child as u32 };
                nodes.push(Node { feature: LEAF, threshold: 0.0, child: 0 });
                nodes.push(Node { feature: LEAF, threshold: 0.0, child: 0 });
                stack.push((child + 1, start + split, end, depth + 1));
                stack.push((child, start, start + split, depth + 1));
            }
            None => {
                let w_total: f64 = total.iter().sum::<f64>().max(f64::MIN_POSITIVE);
                let leaf = (leaves.len() / nc) as u32;
                leaves.extend(total.iter().map(|&w| (w / w_total * 65_535.0).round() as u16));
                nodes[node] = Node { feature: LEAF, threshold: 0.0, child: leaf };
            }
        }
    }
    Tree::new(nodes, leaves)
}

fn gini(w: &[f64], total: f64) -> f64 {
    if total <= 0.0 {
        return 0.0;
    }
    1.0 - w.iter().map(|&v| (v / total) * (v / total)).sum::<f64>()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// Two features; class 1 when x0 + noise > 0.5, class 2 when x1 > 0.8 as well.
    fn data(n: usize, seed: u64) -> (Vec<f32>, Vec<u8>) {
        let mut rng = SplitMix64::new(seed);
        let mut x = Vec::new();
        let mut y = Vec::new();
        for _ in 0..n {
            let a = (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
            let b = (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
            x.extend([a, b]);
            y.push(if a > 0.5 && b > 0.8 { 2 } else { u8::from(a > 0.5) });
        }
        (x, y)
    }

    #[test]
    fn learns_a_simple_rule_deterministically() {
        let (x, y) = data(4000, 1);
        let params = ForestParams { trees: 8, ..ForestParams::default() };
        let forest = Forest::train(&x, &y, 2, 3, &params).unwrap();
        assert_eq!(forest, Forest::train(&x, &y, 2, 3, &params).unwrap());
        let (tx, ty) = data(1000, 2);
        let right = (0..1000).filter(|&i| forest.predict(&tx[2 * i..2 * i + 2]).0 == usize::from(ty[i])).count();
        assert!(right > 970, "{right}");
        let back = Forest::from_bytes(&forest.to_bytes()).unwrap();
        assert_eq!(back, forest);
    }

    /// One sample down every tree, node by node, the leaves summed in tree order: the plain
    /// reading of the model, to check the blocked descent against.
    fn descend(forest: &Forest, sample: &[f32]) -> [f32; 3] {
        let mut out = [0f32; 3];
        for tree in &forest.trees {
            let mut k = 0;
            loop {
                let node = &tree.nodes[k];
                if node.feature == LEAF {
                    let at = node.child as usize * 3;
                    for (o, &p) in out.iter_mut().zip(&tree.leaves[at..at + 3]) {
                        *o += f32::from(p);
                    }
                    break;
                }
                k = node.child as usize + usize::from(sample[usize::from(node.feature)] > node.threshold);
            }
        }
        out.map(|o| o / (forest.trees.len() as f32 * 65_535.0))
    }

    #[test]
    fn many_samples_at_once_are_each_sample_alone() {
        let (x, y) = data(3000, 4);
        let forest = Forest::train(&x, &y, 2, 3, &ForestParams { trees: 9, ..ForestParams::default() }).unwrap();
        // 1,003 rows: not a whole number of lanes. A wider row (three values, the forest reads
        // two) is read at its own stride.
        let (tx, _) = data(1003, 5);
        let mut many = vec![f32::NAN; 1003 * 3];
        forest.probabilities_many(&tx, 2, &mut many);
        let wide: Vec<f32> = tx.chunks(2).flat_map(|r| [r[0], r[1], 99.0]).collect();
        let mut many_wide = vec![0.0; 1003 * 3];
        forest.probabilities_many(&wide, 3, &mut many_wide);
        for i in 0..1003 {
            let one = descend(&forest, &tx[2 * i..2 * i + 2]);
            assert_eq!(one.map(f32::to_bits), [0, 1, 2].map(|c| many[3 * i + c].to_bits()), "row {i}");
            let mut single = [f32::NAN; 4];
            forest.probabilities(&tx[2 * i..2 * i + 2], &mut single);
            assert_eq!(single[..3], one, "row {i}");
            assert_eq!(single[3], 0.0);
            assert_eq!(&many_wide[3 * i..3 * i + 3], &many[3 * i..3 * i + 3]);
        }
        // Too few features a row: nothing is read.
        let mut none = vec![1.0; 6];
        forest.probabilities_many(&tx[..2], 1, &mut none);
        assert_eq!(none, vec![0.0; 6]);
    }

    #[test]
    fn a_tree_that_is_one_leaf_and_trees_of_uneven_depth() {
        // One class only: every tree is its root, a leaf, and every row gets that class.
        let (x, _) = data(200, 5);
        let forest = Forest::train(&x, &[1; 200], 2, 3, &ForestParams { trees: 4, ..ForestParams::default() }).unwrap();
        assert!(forest.trees.iter().all(|t| t.depth == 0 && t.walk.len() == 1));
        let mut p = vec![f32::NAN; 3 * 11];
        forest.probabilities_many(&x[..22], 2, &mut p);
        assert!(p.chunks(3).all(|r| r == [0.0, 1.0, 0.0]), "{p:?}");
        // Trained trees: a depth within the bound, and a step that loops for each leaf.
        let (x, y) = data(2000, 6);
        let forest =
            Forest::train(&x, &y, 2, 3, &ForestParams { trees: 4, max_depth: 6, ..ForestParams::default() }).unwrap();
        for tree in &forest.trees {
            assert!(tree.depth > 0 && tree.depth <= 6, "{}", tree.depth);
            let leaves = tree.walk.iter().enumerate().filter(|(k, s)| s.next as usize == *k).count();
            assert_eq!(leaves, tree.nodes.iter().filter(|n| n.feature == LEAF).count());
        }
    }

    #[test]
    fn corrupt_bytes_are_errors() {
        let (x, y) = data(500, 3);
        let forest = Forest::train(&x, &y, 2, 3, &ForestParams { trees: 3, ..ForestParams::default() }).unwrap();
        let bytes = forest.to_bytes();
        for cut in 0..bytes.len() {
            assert!(Forest::from_bytes(&bytes[..cut]).is_err());
        }
        let mut rng = SplitMix64::new(9);
        for _ in 0..2000 {
            let mut b = bytes.clone();
            for _ in 0..1 + rng.below(4) {
                let k = rng.below(b.len());
                b[k] = rng.next_u64() as u8;
            }
            if let Ok(f) = Forest::from_bytes(&b) {
                // Whatever survives the checks predicts without panicking.
                f.predict(&[0.3, 0.9]);
            }
        }
    }
}
