//! Near misses: a name that is almost the one a tool looks for, which the tool ignores without a
//! word (an argocd-cm key, a healthCheckExprs group or kind, a label key).

/// Levenshtein distance over characters, stopping early above `limit` (returns `limit + 1`).
pub fn distance(a: &str, b: &str, limit: usize) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > limit {
        return limit + 1;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        if cur.iter().min().copied().unwrap_or(0) > limit {
            return limit + 1;
        }
        prev = cur;
    }
    prev[b.len()].min(limit + 1)
}

/// Whether `got` is a near miss of `want`: not equal, but equal ignoring case, surrounding
/// space, `/` for `_`, or within `max` edits.
pub fn near_miss(got: &str, want: &str, max: usize) -> bool {
    if got == want {
        return false;
    }
    let norm = |s: &str| s.trim().to_ascii_lowercase().replace('/', "_");
    norm(got) == norm(want) || distance(got, want, max) <= max
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_and_near_misses() {
        assert_eq!(distance("kitten", "sitting", 5), 3);
        assert_eq!(distance("same", "same", 2), 0);
        assert_eq!(distance("a", "abcdef", 2), 3);
        let key = "resource.customizations.health.pacto.trianalab.io_Pacto";
        for miss in [
            "resource.customizations.health.pacto.trianalab.io/Pacto",
            "resource.customizations.health.pacto.trianalab.io_pacto",
            "resource.customization.health.pacto.trianalab.io_Pacto",
            "resource.customizations.health.pacto.trianalab_Pacto",
            "resource.customizations.health.pacto.trianalab.io_Pacto ",
        ] {
            assert!(near_miss(miss, key, 4), "{miss}");
        }
        assert!(!near_miss(key, key, 4));
        assert!(!near_miss(
            "resource.customizations.health.apps_Deployment",
            key,
            4
        ));
    }
}
