//! A count of bytes shared by the requests of one [`super::Cluster`] and bounded by a limit:
//! the bytes of the answers being read at once (bounded by `--max-response-bytes`), and what the
//! command holds of parsed answers ([`super::parsed_size`], bounded by
//! [`super::parsed_size::PARSED_FACTOR`] times it).

use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes taken of a bound, by whoever shares the count.
#[derive(Debug, Default)]
pub struct Budget {
    bytes: AtomicU64,
}

impl Budget {
    /// Takes `more` bytes; false (taking none) when the count would pass `limit`.
    pub fn take(&self, more: u64, limit: u64) -> bool {
        self.bytes
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |now| {
                now.checked_add(more).filter(|n| *n <= limit)
            })
            .is_ok()
    }

    /// Gives back `less` bytes taken before (never below nothing).
    pub fn give_back(&self, less: u64) {
        let _ = self
            .bytes
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |now| {
                Some(now.saturating_sub(less))
            });
    }

    /// What is taken now.
    pub fn now(&self) -> u64 {
        self.bytes.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shared count takes up to its bound and gives back.
    #[test]
    fn the_count_stays_within_its_bound() {
        let b = Budget::default();
        assert!(b.take(60, 100));
        assert!(!b.take(41, 100));
        assert_eq!(b.now(), 60);
        assert!(b.take(40, 100));
        assert!(!b.take(u64::MAX, u64::MAX));
        b.give_back(70);
        assert_eq!(b.now(), 30);
        b.give_back(1000);
        assert_eq!(b.now(), 0);
    }
}
