//! A worker's clock, which faults skew, drift or make jump.

/// A worker's clock: skew, drift and one jump. The explorer's model times its workers with the
/// same code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct ClockModel {
    pub(crate) skew_ms: i64,
    pub(crate) drift_ppm: i32,
    pub(crate) jump_at: Option<u64>,
    pub(crate) jump_ms: i64,
}

impl ClockModel {
    /// Local reading without the jump.
    pub(super) fn linear(&self, t: u64) -> i128 {
        // t + skew + floor(t * drift / 10^6), with t split as q * 10^6 + r so that the one
        // division left is of 64-bit integers (a 128-bit division costs the WebAssembly
        // simulator a kilobyte of code): floor((q * 10^6 + r) * d / 10^6) = q * d + floor(r * d / 10^6).
        let d = i64::from(self.drift_ppm);
        let (q, r) = (t / 1_000_000, (t % 1_000_000) as i64);
        i128::from(t)
            + i128::from(self.skew_ms)
            + i128::from(q) * i128::from(d)
            + i128::from((r * d).div_euclid(1_000_000))
    }

    /// The worker's clock reading at real time `t`.
    pub(super) fn local(&self, t: u64) -> i128 {
        let jump = match self.jump_at {
            Some(j) if t >= j => i128::from(self.jump_ms),
            _ => 0,
        };
        self.linear(t) + jump
    }

    /// Smallest real `t >= from` with `linear(t) >= target`.
    pub(super) fn linear_reach(&self, from: u64, target: i128) -> u64 {
        if self.linear(from) >= target {
            return from;
        }
        // linear(t) ~= t * (1 + d) + skew: start from an estimate and step to the exact answer.
        // The estimate is only where the steps start (they find the same t from anywhere), so
        // floating point does. Its error is that of a few roundings of t to a double's 53 bits:
        // at most 2 steps below 2^53, then growing with t to some thousands near 2^64 (up to
        // about t / 2^50, measured). A target past what the estimate can hold saturates it to
        // u64::MAX; one below any reading makes it 0.
        let x = target - i128::from(self.skew_ms);
        let x = match i64::try_from(x) {
            Ok(x) => x as f64,
            Err(_) if x < 0 => -1.0,
            Err(_) => i64::try_from(x >> 16)
                .map_or(f64::MAX, |h| h as f64 * 65_536.0 + f64::from(x as u16)),
        };
        let est = x * 1_000_000.0 / (1_000_000.0 + f64::from(self.drift_ppm));
        // `as` saturates: a negative or NaN estimate becomes 0, one past u64::MAX becomes MAX.
        let mut t = (est as u64).max(from);
        while t > from && self.linear(t - 1) >= target {
            t -= 1;
        }
        while self.linear(t) < target && t < u64::MAX {
            t += 1;
        }
        t
    }

    /// The real instant at or after `from` when the local clock first reads `target`.
    pub(super) fn real_at_local(&self, from: u64, target: i128) -> u64 {
        match self.jump_at {
            Some(j) if j > from => {
                // Before the jump the clock is linear; after it, shifted by jump_ms.
                let before = self.linear_reach(from, target);
                if before < j {
                    before
                } else {
                    self.linear_reach(j, target - i128::from(self.jump_ms))
                }
            }
            Some(_) => self.linear_reach(from, target - i128::from(self.jump_ms)),
            None => self.linear_reach(from, target),
        }
    }

    /// The real instant at which `d` local milliseconds have passed since real time `from`.
    pub(crate) fn after(&self, from: u64, d: u64) -> u64 {
        let target = self.local(from) + i128::from(d);
        self.real_at_local(from, target).max(from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_model_inverts() {
        let c = ClockModel {
            skew_ms: 0,
            drift_ppm: -500_000,
            jump_at: None,
            jump_ms: 0,
        };
        // Half speed: 1000 local ms take 2000 real ms.
        assert_eq!(c.after(0, 1000), 2000);
        assert_eq!(c.after(1000, 1000), 3000);
        let fast = ClockModel {
            drift_ppm: 1_000_000,
            ..ClockModel::default()
        };
        assert_eq!(fast.after(0, 1000), 500);
        let jump = ClockModel {
            jump_at: Some(500),
            jump_ms: 400,
            ..ClockModel::default()
        };
        // The clock leaps 400 ms at t=500: a 1000 ms timer set at 0 fires at 600.
        assert_eq!(jump.after(0, 1000), 600);
        assert_eq!(jump.after(0, 300), 300);
        let back = ClockModel {
            jump_at: Some(500),
            jump_ms: -400,
            ..ClockModel::default()
        };
        assert_eq!(back.after(0, 1000), 1400);
        let skew = ClockModel {
            skew_ms: -5_000,
            ..ClockModel::default()
        };
        assert_eq!(skew.after(100, 1000), 1100);
    }

    /// The clock's reading as a plain 128-bit formula.
    fn linear_by_formula(c: &ClockModel, t: u64) -> i128 {
        let t = i128::from(t);
        t + i128::from(c.skew_ms) + (t * i128::from(c.drift_ppm)).div_euclid(1_000_000)
    }

    /// `linear_reach(from, target)` is the smallest instant at or after `from` whose reading
    /// reaches `target`, or u64::MAX when none does.
    fn reaches_first(
        c: &ClockModel,
        from: u64,
        target: i128,
    ) -> Result<(), proptest::test_runner::TestCaseError> {
        let t = c.linear_reach(from, target);
        proptest::prop_assert!(t >= from);
        if t < u64::MAX {
            proptest::prop_assert!(c.linear(t) >= target);
        }
        if t > from {
            proptest::prop_assert!(c.linear(t - 1) < target);
        }
        Ok(())
    }

    /// Instants worth trying: small ones, ones near the 10^6 boundaries of the split, and huge
    /// ones near 2^63 and 2^64.
    fn instant() -> impl proptest::strategy::Strategy<Value = u64> {
        use proptest::prelude::*;
        prop_oneof![
            0u64..5_000_000,
            (0u64..18_446_744_073_709).prop_map(|q| q * 1_000_000),
            (0u64..18_446_744_073_709).prop_map(|q| q * 1_000_000 + 999_999),
            any::<u64>(),
            (u64::MAX - 5_000_000)..=u64::MAX,
            (1u64 << 63) - 5_000_000..(1u64 << 63) + 5_000_000,
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]

        /// The split computation of the reading equals the formula everywhere, for every drift
        /// a scenario may have and for any drift at all.
        #[test]
        fn linear_equals_the_formula(
            t in instant(),
            skew_ms in proptest::prelude::any::<i64>(),
            drift_ppm in proptest::prop_oneof![-900_000i32..=1_000_000, proptest::prelude::any::<i32>()],
        ) {
            let c = ClockModel { skew_ms, drift_ppm, jump_at: None, jump_ms: 0 };
            proptest::prop_assert_eq!(c.linear(t), linear_by_formula(&c, t));
        }

        /// `linear_reach` finds the smallest instant at or after `from` whose reading reaches
        /// the target (or u64::MAX when none does), wherever its estimate starts it.
        #[test]
        fn linear_reach_is_the_first_instant(
            from in instant(),
            ahead in proptest::prop_oneof![0u64..5_000_000, proptest::prelude::any::<u64>()],
            skew_ms in -1_000_000i64..=1_000_000,
            drift_ppm in -900_000i32..=1_000_000,
        ) {
            let c = ClockModel { skew_ms, drift_ppm, jump_at: None, jump_ms: 0 };
            reaches_first(&c, from, c.linear(from) + i128::from(ahead))?;
        }
    }

    proptest::proptest! {
        // Fewer cases: a target near 2^64 takes thousands of steps from its estimate.
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(10_000))]

        /// The same for any target: below the reading at `from`, below any reading (the
        /// estimate's negative branch), beyond 2^79 (its `f64::MAX` branch), near 2^63 and
        /// 2^64, and near or past the reading at u64::MAX.
        #[test]
        fn linear_reach_is_the_first_instant_for_any_target(
            from in instant(),
            target in proptest::prop_oneof![
                -5_000_000i128..5_000_000,
                proptest::strategy::Strategy::prop_map(proptest::prelude::any::<i64>(), i128::from),
                -(1i128 << 100)..(1i128 << 100),
                -(1i128 << 66)..(1i128 << 66),
                (1i128 << 63) - 5_000_000..(1i128 << 63) + 5_000_000,
                (1i128 << 64) - 5_000_000..(1i128 << 64) + 5_000_000,
            ],
            from_end in proptest::option::of(-5_000_000i128..5_000_000),
            skew_ms in -1_000_000i64..=1_000_000,
            drift_ppm in -900_000i32..=1_000_000,
        ) {
            let c = ClockModel { skew_ms, drift_ppm, jump_at: None, jump_ms: 0 };
            let target = from_end.map_or(target, |d| c.linear(u64::MAX) + d);
            reaches_first(&c, from, target)?;
        }
    }
}
