//! Accuracy of a ground filter against reference labels, as the ISPRS filter test measures it
//! (Sithole and Vosselman 2004, "Experimental comparison of filter algorithms for bare-Earth
//! extraction from airborne laser scanning point clouds").

/// Counts of a ground/object classification against the reference.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Confusion {
    /// Ground points classified as ground (a).
    pub ground_as_ground: u64,
    /// Ground points classified as object: type I errors (b).
    pub ground_as_object: u64,
    /// Object points classified as ground: type II errors (c).
    pub object_as_ground: u64,
    /// Object points classified as object (d).
    pub object_as_object: u64,
}

impl Confusion {
    /// Counts `predicted` (true for ground) against `reference` (true for ground); the slices are
    /// compared up to the shorter one's length.
    ///
    /// ```
    /// use meridian_pointcloud::Confusion;
    /// let c = Confusion::count(&[true, true, false, false], &[true, false, false, true]);
    /// assert_eq!(c.total_error(), 0.5);
    /// ```
    pub fn count(reference: &[bool], predicted: &[bool]) -> Self {
        let mut c = Self::default();
        for (&r, &p) in reference.iter().zip(predicted) {
            match (r, p) {
                (true, true) => c.ground_as_ground += 1,
                (true, false) => c.ground_as_object += 1,
                (false, true) => c.object_as_ground += 1,
                (false, false) => c.object_as_object += 1,
            }
        }
        c
    }

    /// Number of points counted.
    pub fn points(&self) -> u64 {
        self.ground_as_ground + self.ground_as_object + self.object_as_ground + self.object_as_object
    }

    /// Type I error: the share of ground points rejected as object, b / (a + b).
    pub fn type1(&self) -> f64 {
        ratio(self.ground_as_object, self.ground_as_ground + self.ground_as_object)
    }

    /// Type II error: the share of object points accepted as ground, c / (c + d).
    pub fn type2(&self) -> f64 {
        ratio(self.object_as_ground, self.object_as_ground + self.object_as_object)
    }

    /// Total error: the share of points misclassified, (b + c) / n.
    pub fn total_error(&self) -> f64 {
        ratio(self.ground_as_object + self.object_as_ground, self.points())
    }

    /// Cohen's kappa: agreement beyond chance, (p_o − p_e) / (1 − p_e).
    pub fn kappa(&self) -> f64 {
        let n = self.points() as f64;
        if n == 0.0 {
            return 0.0;
        }
        let (a, b, c, d) = (
            self.ground_as_ground as f64,
            self.ground_as_object as f64,
            self.object_as_ground as f64,
            self.object_as_object as f64,
        );
        let observed = (a + d) / n;
        let chance = ((a + b) * (a + c) + (c + d) * (b + d)) / (n * n);
        if chance >= 1.0 {
            return if observed >= 1.0 { 1.0 } else { 0.0 };
        }
        (observed - chance) / (1.0 - chance)
    }
}

impl std::ops::Add for Confusion {
    type Output = Confusion;

    fn add(self, o: Confusion) -> Confusion {
        Confusion {
            ground_as_ground: self.ground_as_ground + o.ground_as_ground,
            ground_as_object: self.ground_as_object + o.ground_as_object,
            object_as_ground: self.object_as_ground + o.object_as_ground,
            object_as_object: self.object_as_object + o.object_as_object,
        }
    }
}

/// A confusion matrix of classes (ASPRS codes): `counts[r * n + p]` points of reference class
/// `classes[r]` predicted as `classes[p]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClassConfusion {
    /// The classes, in the matrix's order.
    pub classes: Vec<u8>,
    /// Row-major counts, reference by predicted.
    pub counts: Vec<u64>,
}

impl ClassConfusion {
    /// Counts `predicted` against `reference` over the classes `classes`; points whose reference
    /// or prediction is not among them are left out.
    ///
    /// ```
    /// use meridian_pointcloud::eval::ClassConfusion;
    /// let c = ClassConfusion::count(&[1, 6], &[1, 1, 6, 6], &[1, 6, 6, 6]);
    /// assert_eq!(c.accuracy(), 0.75);
    /// assert_eq!(c.iou(6), Some(2.0 / 3.0));
    /// ```
    pub fn count(classes: &[u8], reference: &[u8], predicted: &[u8]) -> Self {
        let n = classes.len();
        let mut counts = vec![0u64; n * n];
        let at = |c: u8| classes.iter().position(|&k| k == c);
        for (&r, &p) in reference.iter().zip(predicted) {
            if let (Some(r), Some(p)) = (at(r), at(p)) {
                counts[r * n + p] += 1;
            }
        }
        Self { classes: classes.to_vec(), counts }
    }

    /// Points counted.
    pub fn points(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Overall accuracy: the share of points on the diagonal.
    pub fn accuracy(&self) -> f64 {
        let n = self.classes.len();
        ratio((0..n).map(|k| self.counts[k * n + k]).sum(), self.points())
    }

    /// Intersection over union of a class, `None` when it is absent from both sides.
    pub fn iou(&self, class: u8) -> Option<f64> {
        let n = self.classes.len();
        let k = self.classes.iter().position(|&c| c == class)?;
        let tp = self.counts[k * n + k];
        let row: u64 = (0..n).map(|p| self.counts[k * n + p]).sum();
        let col: u64 = (0..n).map(|r| self.counts[r * n + k]).sum();
        let union = row + col - tp;
        (union > 0).then(|| tp as f64 / union as f64)
    }

    /// Reference points of a class.
    pub fn support(&self, class: u8) -> u64 {
        let n = self.classes.len();
        self.classes.iter().position(|&c| c == class).map_or(0, |k| (0..n).map(|p| self.counts[k * n + p]).sum())
    }
}

impl std::ops::Add for ClassConfusion {
    type Output = ClassConfusion;

    /// The sum of two matrices over the same classes (`self` is returned unchanged otherwise).
    fn add(mut self, o: ClassConfusion) -> ClassConfusion {
        if self.classes.is_empty() {
            return o;
        }
        if self.classes == o.classes {
            for (a, b) in self.counts.iter_mut().zip(o.counts) {
                *a += b;
            }
        }
        self
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_follow_the_definitions() {
        // a = 40, b = 10, c = 5, d = 45.
        let c = Confusion { ground_as_ground: 40, ground_as_object: 10, object_as_ground: 5, object_as_object: 45 };
        assert_eq!(c.type1(), 0.2);
        assert_eq!(c.type2(), 0.1);
        assert_eq!(c.total_error(), 0.15);
        // p_o = 0.85, p_e = (50 × 45 + 50 × 55) / 10,000 = 0.5.
        assert!((c.kappa() - 0.7).abs() < 1e-12);
    }
}
