//! Decay: `decay_fairshare_tree`, the scheduler's decay loop, and the factor as PBS holds it.

use super::{MIN_USAGE, PbsTree};

impl PbsTree {
    /// `decay_fairshare_tree`: every node's usage times `factor`, floored at 1. The factor is
    /// first narrowed to `f32`, the type PBS keeps `fairshare_decay_factor` in (see
    /// [`pbs_decay_factor`]); the product is in `f64`, as `usage *= factor` widens it.
    pub fn decay(&mut self, factor: f64) {
        let factor = pbs_decay_factor(factor) as f64;
        for n in &mut self.nodes {
            n.usage *= factor;
            if n.usage < MIN_USAGE {
                n.usage = MIN_USAGE;
            }
        }
    }

    /// The scheduler's decay loop: while `now - last_decay > decay_time` (strict), decay once.
    /// Then `last_decay = now - (now - last_decay) % decay_time`. On first use (`last_decay`
    /// 0) it is set to `now` without decaying. Returns how many decays happened.
    pub fn decay_until(&mut self, now: i64, decay_time: i64, factor: f64) -> u64 {
        if self.last_decay == 0 {
            self.last_decay = now;
            return 0;
        }
        if decay_time <= 0 {
            return 0;
        }
        let mut elapsed = now - self.last_decay;
        let mut n = 0;
        while elapsed > decay_time {
            self.decay(factor);
            elapsed -= decay_time;
            n += 1;
        }
        if n > 0 {
            self.last_decay = now - (now - self.last_decay) % decay_time;
        }
        n
    }
}

/// `fairshare_decay_factor` as PBS holds it. `parse_config` (parse.cpp) reads it with
/// `float fnum = strtod(config_value, &endp)`, so the scheduler and `pbsfs -d` decay by the
/// nearest `f32`: 0.7 is 0.699999988079071, and 5000 decays to 3499.999940395355.
pub fn pbs_decay_factor(factor: f64) -> f32 {
    factor as f32
}

/// Whether PBS accepts `fairshare_decay_factor` `factor`: `parse_config` rejects
/// `fnum <= 0 || fnum >= 1`, tested on the `f32` (so 0.99999999, which rounds to 1, is
/// rejected).
pub fn is_valid_decay_factor(factor: f64) -> bool {
    let f = pbs_decay_factor(factor);
    f > 0.0 && f < 1.0
}

#[cfg(test)]
mod tests {
    use super::super::*;

    /// parse.cpp keeps `fairshare_decay_factor` in a float; `usage *= factor` widens it.
    #[test]
    fn decay_by_the_float_factor() {
        let mut t = man_tree();
        let u = t.find("pbsuser3").unwrap();
        t.decay(0.7);
        assert_eq!(t.node(u).usage, 1000.0 * 0.699999988079071);
        assert_ne!(t.node(u).usage, 700.0);
        assert!(!is_valid_decay_factor(0.99999999));
        assert!(!is_valid_decay_factor(1e-50));
        assert!(is_valid_decay_factor(0.5));
    }

    #[test]
    fn decay_loop_is_strict_and_realigns() {
        let mut t = man_tree();
        assert_eq!(t.decay_until(1_000_000_000, 100, 0.5), 0);
        assert_eq!(t.last_decay, 1_000_000_000);
        assert_eq!(t.decay_until(1_000_000_100, 100, 0.5), 0);
        assert_eq!(t.decay_until(1_000_000_250, 100, 0.5), 2);
        assert_eq!(t.last_decay, 1_000_000_200);
    }
}
