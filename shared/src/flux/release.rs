//! Which Flux release the engine emulates (`--flux-version`), and the `healthCheckExprs`
//! behaviours that differ between releases. Flux v2.N ships kustomize-controller v1.N (N = 5..9)
//! and, from v2.8, helm-controller's `healthCheckExprs`. Each behaviour below was read in the
//! upstream source at the release that changed it:
//!
//! | behaviour | before | from | source |
//! |---|---|---|---|
//! | two entries for one GroupKind | the first is used, the second never compiled | refused: `duplicate custom health check for GroupKind K at healthchecks[i]`, the Kustomization stalls | v2.8: fluxcd/pkg `runtime/cel` `NewStatusReader` (runtime v0.94.0, kustomize-controller v1.8.0 builds v0.100.2); before, `PollerWithCustomHealthChecks` |
//! | an entry without `kind` (one entry for a whole group) | refused by the API server (`kind` is `+required`) | a group-wide entry, a kind's own entry wins | v2.9: fluxcd/pkg `apis/kustomize` and `runtime/cel` (runtime v0.104.0, kustomize-controller v1.9.0) |
//! | a non-integer `status.observedGeneration` or `metadata.generation` | not emulated: refused | skipped by the generation guard, left to the expressions | v2.9: fluxcd/pkg `runtime/cel/status_evaluator.go` (runtime v0.105.0) |
//! | a HelmRelease's `healthCheckExprs` | not a field (the API server prunes it): kstatus judges | used when waiting with the poller strategy | v2.8: helm-controller v1.5.0 `api/v2` |
//! | `healthCheckExprs` at all | not a field | read with `spec.wait: true` | v2.5: kustomize-controller v1.5.0 |
//!
//! cel-go is v0.23 in Flux v2.5 and v2.6 and v0.26 from v2.7 (kustomize-controller `go.mod`);
//! the CEL engine follows v0.26, and the expressions the recommended gates use read the same in
//! both.

use std::sync::atomic::{AtomicU32, Ordering};

/// A Flux release as `v2.MINOR`: the minor version decides every behaviour here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct FluxRelease {
    pub minor: u32,
}

/// The oldest release with `healthCheckExprs` (Flux v2.5, kustomize-controller v1.5).
pub const OLDEST: FluxRelease = FluxRelease { minor: 5 };
/// The release the engines follow (Flux v2.9.4): the default.
pub const NEWEST: FluxRelease = FluxRelease { minor: 9 };

impl FluxRelease {
    /// Reads `2.9`, `v2.9`, `2.8.3`, `v2.7.0`. Errors: not a Flux v2 version, older than v2.5
    /// (no `healthCheckExprs`), newer than the release the engines follow.
    pub fn parse(text: &str) -> Result<FluxRelease, String> {
        // A long value is cut in the message (the rest says nothing more).
        let mut shown: String = text.chars().take(64).collect();
        if shown.len() < text.len() {
            shown.push_str("...");
        }
        let bad = || {
            format!(
                "--flux-version {shown:?}: expected a Flux v2 release such as 2.9, v2.8 or 2.7.3"
            )
        };
        let t = text.strip_prefix('v').unwrap_or(text);
        let mut parts = t.split('.');
        let (Some("2"), Some(minor)) = (parts.next(), parts.next()) else {
            return Err(bad());
        };
        let minor: u32 = minor.parse().map_err(|_| bad())?;
        if parts.next().is_some_and(|p| p.parse::<u32>().is_err()) || parts.next().is_some() {
            return Err(bad());
        }
        let r = FluxRelease { minor };
        if r < OLDEST {
            return Err(format!(
                "--flux-version {shown:?}: Flux before v2.5 has no healthCheckExprs (kustomize-controller v1.5.0 added them)"
            ));
        }
        if r > NEWEST {
            return Err(format!(
                "--flux-version {shown:?}: newer than Flux v2.{}, the release the engines follow (kubectl pacto version)",
                NEWEST.minor
            ));
        }
        Ok(r)
    }

    /// `v2.N`.
    pub fn name(self) -> String {
        format!("v2.{}", self.minor)
    }

    /// Two entries for one GroupKind stall the Kustomization (from v2.8); before, the first wins.
    pub fn refuses_duplicates(self) -> bool {
        self.minor >= 8
    }

    /// An entry may leave out `kind` (from v2.9).
    pub fn kind_optional(self) -> bool {
        self.minor >= 9
    }

    /// A HelmRelease has `healthCheckExprs` (from v2.8).
    pub fn helm_release_exprs(self) -> bool {
        self.minor >= 8
    }

    /// A non-integer generation is left to the expressions (from v2.9); before, the evaluator
    /// errors on it, which is not emulated.
    pub fn tolerates_string_generation(self) -> bool {
        self.minor >= 9
    }
}

static EMULATED: AtomicU32 = AtomicU32::new(NEWEST.minor);

thread_local! {
    /// A release set for this thread alone ([`emulate_here`]), before the process's.
    static HERE: std::cell::Cell<Option<FluxRelease>> = const { std::cell::Cell::new(None) };
}

/// Sets the release the Flux engine emulates for this process (`--flux-version`).
pub fn set_emulated(r: FluxRelease) {
    EMULATED.store(r.minor, Ordering::Relaxed);
}

/// The release the Flux engine emulates: this thread's ([`emulate_here`]), else the process's
/// ([`set_emulated`]), else [`NEWEST`].
pub fn emulated() -> FluxRelease {
    HERE.with(|h| h.get()).unwrap_or(FluxRelease {
        minor: EMULATED.load(Ordering::Relaxed),
    })
}

/// Runs `f` with `r` emulated on this thread only (the process's release is untouched): for a
/// table that judges the same objects as several releases, side by side.
pub fn emulate_here<T>(r: FluxRelease, f: impl FnOnce() -> T) -> T {
    let before = HERE.with(|h| h.replace(Some(r)));
    let out = f();
    HERE.with(|h| h.set(before));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_are_read_and_bounded() {
        for (text, minor) in [("2.9", 9), ("v2.8", 8), ("2.7.3", 7), ("v2.5.0", 5)] {
            assert_eq!(
                FluxRelease::parse(text),
                Ok(FluxRelease { minor }),
                "{text}"
            );
        }
        for text in ["2", "3.0", "2.x", "2.8.x", "2.8.1.1", ""] {
            assert!(
                FluxRelease::parse(text)
                    .unwrap_err()
                    .starts_with("--flux-version"),
                "{text}"
            );
        }
        assert!(FluxRelease::parse("2.4")
            .unwrap_err()
            .contains("no healthCheckExprs"));
        assert!(FluxRelease::parse("2.10")
            .unwrap_err()
            .contains("newer than Flux v2.9"));
    }

    /// Each behaviour on both sides of the release that changed it (the module's table).
    #[test]
    fn behaviours_change_at_their_releases() {
        let at = |minor| FluxRelease { minor };
        assert_eq!(
            (at(7).refuses_duplicates(), at(8).refuses_duplicates()),
            (false, true)
        );
        assert_eq!(
            (at(8).kind_optional(), at(9).kind_optional()),
            (false, true)
        );
        assert_eq!(
            (at(7).helm_release_exprs(), at(8).helm_release_exprs()),
            (false, true)
        );
        assert_eq!(
            (
                at(8).tolerates_string_generation(),
                at(9).tolerates_string_generation()
            ),
            (false, true)
        );
    }

    /// The engine on the same objects as each release, at both sides of each change: the
    /// expected values are the upstream code's at that release (the module's table).
    #[test]
    fn the_engine_judges_as_each_release() {
        use crate::flux::health::FluxHealth;
        use crate::flux::kustomization::parse;
        use crate::flux::KStatus;
        use serde_json::json;
        let at = |minor| FluxRelease { minor };
        let entry = |kind: Option<&str>, current: &str, failed: &str| {
            let mut e = json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "current": current, "failed": failed});
            if let Some(k) = kind {
                e["kind"] = json!(k);
            }
            e
        };
        let kustomization = |exprs: Vec<serde_json::Value>| {
            json!({"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
                "metadata": {"name": "shop", "namespace": "flux-system"},
                "spec": {"wait": true, "healthCheckExprs": exprs}})
        };
        let pacto = |observed: serde_json::Value| {
            json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
                "metadata": {"name": "orders", "namespace": "shop", "generation": 2},
                "status": {"contractStatus": "NonCompliant", "observedGeneration": observed}})
        };
        // The status of the Pacto under the Kustomization's entries, or the error that stops
        // the Kustomization (parse, compile).
        let judge = |r: FluxRelease, k: &serde_json::Value, obj: &serde_json::Value| {
            emulate_here(r, || {
                let kz = parse(k)?;
                let h = FluxHealth::new(&kz.exprs, kz.job_order(), 0)?;
                let v = h.evaluate(obj);
                Ok::<_, String>((v.status, v.error))
            })
        };
        let nc = "status.contractStatus == 'NonCompliant'";
        let ok = "status.contractStatus == 'Compliant'";
        // Two entries for Pacto: the first is used before v2.8, refused from v2.8.
        let dup = kustomization(vec![
            entry(Some("Pacto"), ok, nc),
            entry(Some("Pacto"), "true", ""),
        ]);
        assert_eq!(
            judge(at(7), &dup, &pacto(json!(2))),
            Ok((KStatus::Failed, None))
        );
        assert_eq!(
            judge(at(8), &dup, &pacto(json!(2))).unwrap_err(),
            "duplicate custom health check for GroupKind Pacto.pacto.trianalab.io at healthchecks[1]"
        );
        // Before v2.8 the skipped duplicate is never compiled: its broken expression is no error.
        let broken = kustomization(vec![
            entry(Some("Pacto"), ok, nc),
            entry(Some("Pacto"), "(", ""),
        ]);
        assert_eq!(
            judge(at(7), &broken, &pacto(json!(2))),
            Ok((KStatus::Failed, None))
        );
        // An entry without kind: refused by the API server before v2.9, the group's from v2.9.
        let group = kustomization(vec![entry(None, ok, nc)]);
        assert!(judge(at(8), &group, &pacto(json!(2)))
            .unwrap_err()
            .starts_with(
                "spec.healthCheckExprs[0].kind: Required value: Flux v2.8 requires a kind"
            ));
        assert_eq!(
            judge(at(9), &group, &pacto(json!(2))),
            Ok((KStatus::Failed, None))
        );
        // A string observedGeneration: NestedInt64's error (Unknown) before v2.9, left to the
        // expressions from v2.9.
        let one = kustomization(vec![entry(Some("Pacto"), ok, nc)]);
        assert_eq!(
            judge(at(8), &one, &pacto(json!("2"))),
            Ok((
                KStatus::Unknown,
                Some(".status.observedGeneration accessor error: 2 is of the type string, expected int64".into())
            ))
        );
        assert_eq!(
            judge(at(9), &one, &pacto(json!("2"))),
            Ok((KStatus::Failed, None))
        );
        // An integer one behind the generation is InProgress at every release.
        for r in [at(5), at(8), at(9)] {
            assert_eq!(
                judge(r, &one, &pacto(json!(1))),
                Ok((KStatus::InProgress, None))
            );
        }
        // A HelmRelease's entries are pruned before v2.8: kstatus judges (no conditions:
        // Current); from v2.8 the entry does.
        let hr = json!({"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
            "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"healthCheckExprs": [entry(Some("Pacto"), ok, nc)]}});
        assert_eq!(
            judge(at(7), &hr, &pacto(json!(2))).map(|r| r.0),
            Ok(KStatus::Current)
        );
        assert_eq!(
            judge(at(8), &hr, &pacto(json!(2))).map(|r| r.0),
            Ok(KStatus::Failed)
        );
    }
}
