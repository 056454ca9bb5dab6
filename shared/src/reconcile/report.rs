//! What a reconcile run says of each Stage: left unchanged, updated, or failed, and why, in
//! the words the report gives (the layout is `crate::render::reconcile`). A Stage that changed
//! under the write (409 Conflict) is read again and planned again, at most
//! [`CONFLICT_RETRIES`] times (the way of client-go's `retry.RetryOnConflict`,
//! `util/retry/util.go`: only a conflict is retried, on a fresh read); a 403 names the permission the
//! ServiceAccount lacks, as `deploy/rbac.yaml` grants it (`patch` on `stages/status`: the
//! status subresource is authorized apart from its object).

use super::plan::{Change, Write};

/// How many times a Stage that changed under the write is read and written again.
pub const CONFLICT_RETRIES: u32 = 3;

/// What became of one Stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// Its status already said what is computed: no request.
    Unchanged,
    /// Its status was written.
    Updated,
    /// Its status could not be written.
    Failed,
}

impl Written {
    /// `unchanged`, `updated`, `failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Written::Unchanged => "unchanged",
            Written::Updated => "updated",
            Written::Failed => "failed",
        }
    }
}

/// One Stage of the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StageResult {
    pub namespace: String,
    pub name: String,
    pub written: Written,
    /// Why it was written (the conditions that differed), or why it failed; empty when
    /// unchanged.
    pub detail: String,
}

impl StageResult {
    /// The result of `change` written (or, without a write, left as it was; or, when the plan
    /// refused to write it, failed with the plan's reason).
    pub fn done(change: &Change) -> StageResult {
        if let Some(why) = &change.refused {
            return StageResult::failed(change, Failure::Refused(why));
        }
        let written = match change.write {
            Some(_) => Written::Updated,
            None => Written::Unchanged,
        };
        StageResult {
            namespace: change.namespace.clone(),
            name: change.name.clone(),
            written,
            detail: match written {
                Written::Updated => change.why.join("; "),
                _ => String::new(),
            },
        }
    }

    /// The result of `change` when its write failed (`failure` says how).
    pub fn failed(change: &Change, failure: Failure<'_>) -> StageResult {
        StageResult {
            namespace: change.namespace.clone(),
            name: change.name.clone(),
            written: Written::Failed,
            detail: failure.detail(),
        }
    }
}

/// How a write failed; each carries the API server's error as worded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure<'a> {
    /// 403: the ServiceAccount may not patch the status subresource.
    Forbidden(&'a str),
    /// 409 on the last of `CONFLICT_RETRIES + 1` attempts.
    Conflicts(&'a str),
    /// 409, and the Stage could not be read again.
    Unreadable(&'a str),
    /// 409, and the re-read answered another object than the one listed
    /// ([`super::reread::same_stage`] says how).
    Replaced(&'a str),
    /// The plan refused the write (no resourceVersion to guard a merge patch).
    Refused(&'a str),
    /// The run's `--timeout` (as given, `3m0s`) passed before the write was sent.
    NotStarted(&'a str),
    /// The run's `--timeout` passed while the write was in flight: the request was cancelled, and
    /// the API server may or may not have applied it.
    Cancelled(&'a str),
    /// Anything else.
    Other(&'a str),
}

impl Failure<'_> {
    /// The report's detail for this failure.
    pub fn detail(self) -> String {
        match self {
            Failure::Forbidden(e) => {
                format!("skipped: {e} (the ServiceAccount needs patch on stages/status)")
            }
            Failure::Conflicts(e) => format!(
                "changed under every one of {} attempts: {e}",
                CONFLICT_RETRIES + 1
            ),
            Failure::Unreadable(e) => {
                format!("changed while being written, and could not be read again: {e}")
            }
            Failure::Replaced(e) => {
                format!("changed while being written, and read again it is another object: {e}; not written")
            }
            Failure::Refused(e) => format!("not written: {e}"),
            Failure::NotStarted(t) => {
                format!("not written: the run's --timeout of {t} passed before its turn")
            }
            Failure::Cancelled(t) => format!(
                "the run's --timeout of {t} passed while it was being written: the request was cancelled, and the API server may or may not have applied it"
            ),
            Failure::Other(e) => e.to_string(),
        }
    }
}

/// How a planned write is sent, in the words of `--dry-run`.
pub fn how(write: &Write) -> &'static str {
    match write {
        Write::Apply(_) => "server-side apply of stages/status, field manager kubectl-pacto",
        Write::GuardedMerge(_) => "merge patch of stages/status, guarded by resourceVersion",
    }
}

/// `namespace/name` of every Stage left unwritten, in the report's order.
pub fn unwritten(results: &[StageResult]) -> Vec<String> {
    results
        .iter()
        .filter(|r| r.written == Written::Failed)
        .map(|r| format!("{}/{}", r.namespace, r.name))
        .collect()
}

/// The exit code of a run: 0 when every Stage is written or unchanged, 1 when one is left
/// unwritten (2, could not run, is the caller's).
pub fn exit_code(results: &[StageResult]) -> u8 {
    u8::from(!unwritten(results).is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delivery::condition::Condition;
    use serde_json::json;

    fn change(write: Option<Write>) -> Change {
        let c = |t: &'static str| Condition {
            type_: t,
            status: "True",
            reason: "R".into(),
            message: String::new(),
        };
        Change {
            namespace: "test".into(),
            name: "payments".into(),
            uid: Some("u-1".into()),
            conditions: [c("Ready"), c("Mediated")],
            write,
            why: vec!["Ready differs".into(), "observedGeneration differs".into()],
            refused: None,
        }
    }

    /// The permission a 403 names is the one `deploy/rbac.yaml` grants the reconcile (`patch`
    /// on `stages/status`), and the attempts a conflict gets are `CONFLICT_RETRIES + 1`.
    #[test]
    fn each_result_and_its_detail() {
        let rbac = include_str!("../../../deploy/rbac.yaml");
        assert!(
            rbac.contains("resources: [stages/status]\n    verbs: [patch]"),
            "deploy/rbac.yaml no longer grants patch on stages/status"
        );
        let table = [
            (StageResult::done(&change(None)), "unchanged", ""),
            (
                StageResult::done(&change(Some(Write::Apply(json!({}))))),
                "updated",
                "Ready differs; observedGeneration differs",
            ),
            (
                StageResult::failed(&change(None), Failure::Forbidden("forbidden: no")),
                "failed",
                "skipped: forbidden: no (the ServiceAccount needs patch on stages/status)",
            ),
            (
                StageResult::failed(&change(None), Failure::Conflicts("conflict")),
                "failed",
                "changed under every one of 4 attempts: conflict",
            ),
            (
                StageResult::failed(&change(None), Failure::Unreadable("gone")),
                "failed",
                "changed while being written, and could not be read again: gone",
            ),
            (
                StageResult::failed(&change(None), Failure::Replaced("the re-read answered prod/x, not test/payments")),
                "failed",
                "changed while being written, and read again it is another object: the re-read answered prod/x, not test/payments; not written",
            ),
            (
                StageResult::done(&Change {
                    refused: Some("no resourceVersion".into()),
                    ..change(None)
                }),
                "failed",
                "not written: no resourceVersion",
            ),
            (
                StageResult::failed(&change(None), Failure::NotStarted("3m0s")),
                "failed",
                "not written: the run's --timeout of 3m0s passed before its turn",
            ),
            (
                StageResult::failed(&change(None), Failure::Cancelled("3m0s")),
                "failed",
                "the run's --timeout of 3m0s passed while it was being written: the request was cancelled, and the API server may or may not have applied it",
            ),
            (
                StageResult::failed(&change(None), Failure::Other("timeout")),
                "failed",
                "timeout",
            ),
        ];
        for (r, written, detail) in &table {
            assert_eq!((r.written.as_str(), r.detail.as_str()), (*written, *detail));
        }
        let results: Vec<StageResult> = table.iter().map(|(r, _, _)| r.clone()).collect();
        assert_eq!(unwritten(&results).len(), 8);
        assert_eq!(exit_code(&results), 1);
        assert_eq!(exit_code(&results[..2]), 0);
        assert_eq!(
            how(&Write::GuardedMerge(json!({}))),
            "merge patch of stages/status, guarded by resourceVersion"
        );
    }
}
