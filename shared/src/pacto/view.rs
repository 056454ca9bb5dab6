//! A typed, read-only view of a Pacto object (`pacto.trianalab.io/v1alpha1`, kind `Pacto`) over
//! both status shapes found in clusters:
//!
//! * current (TrianaLab/pacto `integrations/kubernetes/api/v1alpha1/pacto_types.go`):
//!   `status.summary.{errorCount,warningCount,infoCount,unknownCount}`, `status.findings[]`, and the
//!   conditions ContractValid / RuntimeObserved / ReadinessSatisfied;
//! * legacy (TrianaLab/pacto-operator): `status.summary.{total,passed,failed}`, no findings, one
//!   condition per check (ServiceExists, WorkloadExists, PortsValid, ...).
//!
//! The shape is detected by field presence, never assumed. Every enum is open: a value the plugin
//! does not know is kept as written. Reading never fails: a field of the wrong type reads as absent
//! and is listed in [`PactoView::anomalies`].

use jiff::Timestamp;
use serde_json::Value;

/// `spec.checkIntervalSeconds` when absent (the CRD default; also the operator's requeue interval).
pub const DEFAULT_CHECK_INTERVAL_SECONDS: i64 = 300;

/// Which operator line wrote the status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schema {
    /// `findings` or `summary.errorCount`-style counts (TrianaLab/pacto operator, 5.x/6.x).
    Current,
    /// `summary.total` or per-check condition types (TrianaLab/pacto-operator).
    Legacy,
    /// No `status` at all: never reconciled.
    None,
    /// A status with neither shape's markers (for example only a ContractValid condition).
    Undetermined,
}

impl Schema {
    /// `current`, `legacy`, `none`, `undetermined`.
    pub fn as_str(self) -> &'static str {
        match self {
            Schema::Current => "current",
            Schema::Legacy => "legacy",
            Schema::None => "none",
            Schema::Undetermined => "undetermined",
        }
    }
}

/// One `status.findings[]` entry (`FindingStatus`). `message` is `None` when the field is absent
/// (schema-violating input the Argo script prints as `nil`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Finding {
    pub code: String,
    /// error | warning | info | unknown, or whatever was written.
    pub severity: String,
    pub category: String,
    pub subject: String,
    pub contract_path: String,
    pub message: Option<String>,
}

/// One `status.conditions[]` entry (metav1.Condition).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Condition {
    pub type_: String,
    /// True | False | Unknown as written.
    pub status: String,
    pub reason: String,
    pub message: String,
    pub observed_generation: Option<i64>,
    pub last_transition_time: Option<Timestamp>,
}

/// One `status.observationWindows[]` entry: an assertion's negative streak.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObservationWindow {
    /// interface | dependency | configuration | capability.
    pub kind: String,
    pub subject: String,
    pub first_observed_negative_at: Option<Timestamp>,
}

/// `status.validation.errors[]` / `warnings[]` entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationIssue {
    pub code: String,
    pub path: String,
    pub message: String,
}

/// The severity counts of `status.summary`, as far as the shape has them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Summary {
    pub errors: Option<i64>,
    pub warnings: Option<i64>,
    pub infos: Option<i64>,
    pub unknowns: Option<i64>,
    /// Legacy: checks run, passed, failed.
    pub total: Option<i64>,
    pub passed: Option<i64>,
    pub failed: Option<i64>,
}

/// `status.readiness` (a separate dimension: never changes contractStatus).
#[derive(Debug, Clone, PartialEq)]
pub struct Readiness {
    pub score: Option<f64>,
    pub min_score: Option<f64>,
    pub passing: Option<bool>,
    pub expired: Option<bool>,
}

/// Everything `get` and `explain` read from one Pacto.
#[derive(Debug, Clone, PartialEq)]
pub struct PactoView {
    pub namespace: String,
    pub name: String,
    pub generation: Option<i64>,
    pub creation_timestamp: Option<Timestamp>,
    /// `metadata.deletionTimestamp` as written.
    pub deletion_timestamp: Option<String>,
    pub finalizers: Vec<String>,
    /// `spec.target` absent: a reference-only contract (never observed).
    pub reference_only: bool,
    pub service_name: Option<String>,
    /// `spec.target.workloadRef` name and kind as written.
    pub workload_ref: Option<(String, Option<String>)>,
    /// `spec.contractRef.oci` (or `inline` when the contract is inline).
    pub contract_ref: Option<String>,
    /// `spec.checkIntervalSeconds`, default 300 s.
    pub check_interval_seconds: i64,
    /// Whether `spec.checkIntervalSeconds` is set (else the CRD default applies).
    pub check_interval_explicit: bool,
    pub has_status: bool,
    pub schema: Schema,
    /// `status.contractStatus` as written; `None` when absent.
    pub contract_status: Option<String>,
    /// `status.contractVersion`.
    pub version: Option<String>,
    pub observed_generation: Option<i64>,
    /// `status.observedGeneration` present but not an integer.
    pub observed_generation_malformed: bool,
    pub last_reconciled_at: Option<Timestamp>,
    pub summary: Summary,
    pub findings: Vec<Finding>,
    pub conditions: Vec<Condition>,
    pub observation_windows: Vec<ObservationWindow>,
    pub validation_errors: Vec<ValidationIssue>,
    pub readiness: Option<Readiness>,
    /// Fields present with a type the schema does not allow (`status.findings: "x"` ...).
    pub anomalies: Vec<String>,
}

/// Condition types only the legacy operator writes (TrianaLab/pacto-operator
/// `api/v1alpha1/conditions.go`).
pub const LEGACY_CHECK_CONDITIONS: [&str; 11] = [
    "ServiceExists",
    "WorkloadExists",
    "PortsValid",
    "HealthEndpointValid",
    "MetricsEndpointValid",
    "WorkloadTypeMatch",
    "StateModelMatch",
    "UpgradeStrategyMatch",
    "GracefulShutdownMatch",
    "ImageMatch",
    "HealthTimingMatch",
];

fn path<'a>(v: &'a Value, keys: &[&str]) -> Option<&'a Value> {
    keys.iter().try_fold(v, |v, k| v.as_object()?.get(*k))
}

/// An integer field: JSON integers, and floats with no fraction (YAML may give either).
fn int(v: Option<&Value>) -> Option<i64> {
    match v? {
        Value::Number(n) => n
            .as_i64()
            .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64)),
        _ => None,
    }
}

fn string(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str).map(str::to_string)
}

/// A string field; a number or boolean in its place (YAML `name: 5`) is kept as written and
/// reported, so that no row goes nameless.
fn scalar(v: Option<&Value>, field: &str, anomalies: &mut Vec<String>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            anomalies.push(format!(
                "{field} is {}, not a string",
                crate::object::json_type(other)
            ));
            other.to_string()
        }
    }
}

/// Parses an RFC 3339 time as Kubernetes writes it (`2026-11-29T12:00:00Z`).
pub fn timestamp(v: Option<&Value>) -> Option<Timestamp> {
    v.and_then(Value::as_str)?.parse().ok()
}

impl PactoView {
    /// Legacy counts from the legacy operator's rule (`computeFinalContractStatus`): a non-True
    /// ServiceExists, WorkloadExists or ContractValid makes it NonCompliant (errors); any other
    /// non-True check is a warning.
    pub fn legacy_counts(&self) -> (usize, usize) {
        let failing = self.legacy_failing_checks();
        let errors = failing
            .iter()
            .filter(|c| {
                matches!(
                    c.type_.as_str(),
                    "ServiceExists" | "WorkloadExists" | "ContractValid"
                )
            })
            .count();
        (errors, failing.len() - errors)
    }

    /// The FINDING column of `get`: the first error finding (`CODE: message`); for a pending
    /// verdict the first unknown finding, or a contract that could not be obtained (ContractValid
    /// Unknown); a legacy Pacto's first failing check; an Invalid contract's first validation
    /// error. Raw text: the renderer escapes it for a terminal. Empty when there is none.
    pub fn headline(&self) -> String {
        let v = self;
        let f = v.first_error().or_else(|| {
            (v.contract_status.as_deref() == Some("Unknown"))
                .then(|| v.findings.iter().find(|f| f.severity == "unknown"))
                .flatten()
        });
        if let Some(f) = f {
            return match &f.message {
                Some(m) => format!("{}: {}", f.code, m),
                None => f.code.clone(),
            };
        }
        if v.schema == Schema::Legacy {
            if let Some(c) = v.legacy_failing_checks().first() {
                return format!("{} {}: {}", c.type_, c.reason, c.message);
            }
        }
        if let Some(c) = v
            .condition("ContractValid")
            .filter(|c| c.status == "Unknown")
        {
            return format!("ContractValid {}: {}", c.reason, c.message);
        }
        if let Some(e) = v.validation_errors.first() {
            return format!("{}: {}", e.code, e.message);
        }
        String::new()
    }

    /// Reads a Pacto object (already known to be one; other kinds read as mostly empty views).
    pub fn new(obj: &Value) -> PactoView {
        let mut anomalies = Vec::new();
        let meta = |k: &str| path(obj, &["metadata", k]);
        let status = obj.get("status").filter(|s| !s.is_null());
        let st = |keys: &[&str]| status.and_then(|s| path(s, keys));
        let list = |keys: &[&str], anomalies: &mut Vec<String>| -> Vec<Value> {
            match st(keys) {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(a)) => a.clone(),
                Some(_) => {
                    anomalies.push(format!("status.{} is not a list", keys.join(".")));
                    Vec::new()
                }
            }
        };
        if let Some(s) = status {
            if !s.is_object() {
                anomalies.push("status is not an object".to_string());
            }
        }
        let findings: Vec<Finding> = list(&["findings"], &mut anomalies)
            .iter()
            .map(|f| Finding {
                code: string(f.get("code")).unwrap_or_default(),
                severity: string(f.get("severity")).unwrap_or_default(),
                category: string(f.get("category")).unwrap_or_default(),
                subject: string(f.get("subject")).unwrap_or_default(),
                contract_path: string(f.get("contractPath")).unwrap_or_default(),
                message: string(f.get("message")),
            })
            .collect();
        let conditions: Vec<Condition> = list(&["conditions"], &mut anomalies)
            .iter()
            .map(|c| Condition {
                type_: string(c.get("type")).unwrap_or_default(),
                status: string(c.get("status")).unwrap_or_default(),
                reason: string(c.get("reason")).unwrap_or_default(),
                message: string(c.get("message")).unwrap_or_default(),
                observed_generation: int(c.get("observedGeneration")),
                last_transition_time: timestamp(c.get("lastTransitionTime")),
            })
            .collect();
        let observation_windows = list(&["observationWindows"], &mut anomalies)
            .iter()
            .map(|w| ObservationWindow {
                kind: string(w.get("kind")).unwrap_or_default(),
                subject: string(w.get("subject")).unwrap_or_default(),
                first_observed_negative_at: timestamp(w.get("firstObservedNegativeAt")),
            })
            .collect();
        let validation_errors = list(&["validation", "errors"], &mut anomalies)
            .iter()
            .map(|e| ValidationIssue {
                code: string(e.get("code")).unwrap_or_default(),
                path: string(e.get("path")).unwrap_or_default(),
                message: string(e.get("message")).unwrap_or_default(),
            })
            .collect();
        let summary = Summary {
            errors: int(st(&["summary", "errorCount"])),
            warnings: int(st(&["summary", "warningCount"])),
            infos: int(st(&["summary", "infoCount"])),
            unknowns: int(st(&["summary", "unknownCount"])),
            total: int(st(&["summary", "total"])),
            passed: int(st(&["summary", "passed"])),
            failed: int(st(&["summary", "failed"])),
        };
        let has_status = status.is_some();
        let current_marker = st(&["findings"]).is_some()
            || summary.errors.is_some()
            || summary.warnings.is_some()
            || summary.unknowns.is_some()
            || st(&["observationWindows"]).is_some();
        let legacy_marker = summary.total.is_some()
            || summary.passed.is_some()
            || conditions
                .iter()
                .any(|c| LEGACY_CHECK_CONDITIONS.contains(&c.type_.as_str()));
        let schema = match (has_status, current_marker, legacy_marker) {
            (false, _, _) => Schema::None,
            (true, true, _) => Schema::Current,
            (true, false, true) => Schema::Legacy,
            (true, false, false) => Schema::Undetermined,
        };
        let contract_status = match st(&["contractStatus"]) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                anomalies.push(format!(
                    "status.contractStatus is {}, not a string",
                    crate::object::json_type(other)
                ));
                Some(other.to_string())
            }
        };
        let og = st(&["observedGeneration"]);
        let observed_generation = int(og);
        let observed_generation_malformed =
            og.is_some_and(|v| !v.is_null()) && observed_generation.is_none();
        if observed_generation_malformed {
            anomalies.push("status.observedGeneration is not an integer".to_string());
        }
        let readiness = st(&["readiness"])
            .filter(|r| r.is_object())
            .map(|r| Readiness {
                score: r.get("score").and_then(Value::as_f64),
                min_score: r.get("minScore").and_then(Value::as_f64),
                passing: r.get("passing").and_then(Value::as_bool),
                expired: r.get("expired").and_then(Value::as_bool),
            });
        let target = path(obj, &["spec", "target"]).filter(|t| !t.is_null());
        let workload_ref = target
            .and_then(|t| t.get("workloadRef"))
            .and_then(|w| Some((string(w.get("name"))?, string(w.get("kind")))));
        let contract_ref = string(path(obj, &["spec", "contractRef", "oci"])).or_else(|| {
            path(obj, &["spec", "contractRef", "inline"]).map(|_| "inline".to_string())
        });
        // The CRD types it int32 with a minimum of 30; anything else cannot come from a cluster.
        let raw_interval = path(obj, &["spec", "checkIntervalSeconds"]).filter(|v| !v.is_null());
        let interval = int(raw_interval).filter(|s| (1..=i64::from(i32::MAX)).contains(s));
        if let (Some(raw), None) = (raw_interval, interval) {
            anomalies.push(format!(
                "spec.checkIntervalSeconds {raw} is not a 32-bit positive integer: the default 300 s is assumed"
            ));
        }
        PactoView {
            namespace: scalar(meta("namespace"), "metadata.namespace", &mut anomalies),
            name: scalar(meta("name"), "metadata.name", &mut anomalies),
            generation: {
                let g = int(meta("generation"));
                if g.is_none() && meta("generation").is_some_and(|v| !v.is_null()) {
                    anomalies.push("metadata.generation is not an integer".to_string());
                }
                g
            },
            creation_timestamp: timestamp(meta("creationTimestamp")),
            deletion_timestamp: string(meta("deletionTimestamp")),
            finalizers: meta("finalizers")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(|f| string(Some(f))).collect())
                .unwrap_or_default(),
            reference_only: target.is_none(),
            service_name: target.and_then(|t| string(t.get("serviceName"))),
            workload_ref,
            contract_ref,
            check_interval_seconds: interval.unwrap_or(DEFAULT_CHECK_INTERVAL_SECONDS),
            check_interval_explicit: interval.is_some(),
            has_status,
            schema,
            contract_status,
            version: string(st(&["contractVersion"])),
            observed_generation,
            observed_generation_malformed,
            last_reconciled_at: timestamp(st(&["lastReconciledAt"])),
            summary,
            findings,
            conditions,
            observation_windows,
            validation_errors,
            readiness,
            anomalies,
        }
    }

    /// The first finding of severity `error`, in list order: the one the recommended Argo CD
    /// script names in its message (structural findings come first, then runtime ones).
    pub fn first_error(&self) -> Option<&Finding> {
        self.findings.iter().find(|f| f.severity == "error")
    }

    /// The condition of a type, if any.
    pub fn condition(&self, type_: &str) -> Option<&Condition> {
        self.conditions.iter().find(|c| c.type_ == type_)
    }

    /// Legacy checks that are not True, in condition order (what made the verdict: the legacy rule
    /// counts every non-True condition: TrianaLab/pacto-operator
    /// `internal/controller/pacto_controller.go`).
    pub fn legacy_failing_checks(&self) -> Vec<&Condition> {
        self.conditions
            .iter()
            .filter(|c| c.status != "True")
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The FINDING column. The first error finding explains a violation; a pending verdict
    /// (contractStatus Unknown) is explained by its first finding of severity unknown (the
    /// Inconclusive family: EVIDENCE_MISSING, OBSERVATION_UNSUPPORTED, ...), never by a warning
    /// listed before it; then a contract that could not be obtained (ContractValid Unknown);
    /// then an Invalid contract's first validation error; warnings alone headline nothing.
    #[test]
    fn the_finding_column_takes_the_finding_that_explains_the_verdict() {
        let w = json!({"code": "TAG_NOT_DIGEST", "severity": "warning", "message": "by tag"});
        let u = |c: &str| json!({"code": c, "severity": "unknown", "message": "no evidence"});
        let e = |c: &str| json!({"code": c, "severity": "error", "message": "declared job"});
        for (status, want) in [
            (
                json!({"contractStatus": "NonCompliant", "findings": [w, e("WORKLOAD_MISMATCH"), e("INTERFACE_ABSENT")]}),
                "WORKLOAD_MISMATCH: declared job",
            ),
            (
                json!({"contractStatus": "Unknown", "findings": [w, u("EVIDENCE_MISSING"), u("OBSERVATION_UNSUPPORTED")]}),
                "EVIDENCE_MISSING: no evidence",
            ),
            (json!({"contractStatus": "Unknown", "findings": [w]}), ""),
            (
                json!({"contractStatus": "Compliant", "findings": [u("EVIDENCE_STALE")]}),
                "",
            ),
            (json!({"contractStatus": "Warning", "findings": [w]}), ""),
            (
                json!({"contractStatus": "NonCompliant", "findings": [{"code": "WORKLOAD_MISMATCH", "severity": "error"}]}),
                "WORKLOAD_MISMATCH",
            ),
            (
                json!({"contractStatus": "Unknown", "conditions": [
                {"type": "ContractValid", "status": "Unknown", "reason": "FetchFailed", "message": "registry unreachable"}]}),
                "ContractValid FetchFailed: registry unreachable",
            ),
            (
                json!({"contractStatus": "Invalid", "validation": {"errors": [
                {"code": "SCHEMA", "message": "service.name is required"},
                {"code": "SCHEMA", "message": "second"}]}}),
                "SCHEMA: service.name is required",
            ),
        ] {
            let v = PactoView::new(&json!({"metadata": {"name": "orders", "namespace": "shop"},
                                           "status": status.clone()}));
            assert_eq!(v.headline(), want, "{status}");
        }
    }

    #[test]
    fn current_shape_is_read_with_findings_in_order() {
        let v = PactoView::new(&json!({
            "metadata": {"name": "orders", "namespace": "shop", "generation": 3},
            "spec": {"target": {"serviceName": "orders"}, "checkIntervalSeconds": 30},
            "status": {
                "contractStatus": "NonCompliant", "observedGeneration": 3,
                "summary": {"errorCount": 1, "warningCount": 1},
                "findings": [
                    {"code": "CONFIGURATION_ABSENT", "severity": "warning", "message": "w"},
                    {"code": "WORKLOAD_MISMATCH", "severity": "error"}
                ]
            }
        }));
        assert_eq!(v.schema, Schema::Current);
        assert_eq!(v.check_interval_seconds, 30);
        assert_eq!(v.summary.errors, Some(1));
        let first = v.first_error().unwrap();
        assert_eq!(first.code, "WORKLOAD_MISMATCH");
        assert_eq!(first.message, None);
        assert!(!v.reference_only);
    }

    #[test]
    fn legacy_shape_is_detected_by_summary_total_or_check_conditions() {
        let by_summary = PactoView::new(&json!({"status": {"summary": {"total": 1, "failed": 1}}}));
        assert_eq!(by_summary.schema, Schema::Legacy);
        let by_condition = PactoView::new(&json!({"status": {"conditions": [
            {"type": "ServiceExists", "status": "False"}]}}));
        assert_eq!(by_condition.schema, Schema::Legacy);
        assert_eq!(
            by_condition.legacy_failing_checks()[0].type_,
            "ServiceExists"
        );
    }

    #[test]
    fn missing_and_partial_statuses_are_told_apart() {
        assert_eq!(
            PactoView::new(&json!({"metadata": {}})).schema,
            Schema::None
        );
        let only_condition = PactoView::new(&json!({"status": {"conditions": [
            {"type": "ContractValid", "status": "Unknown", "reason": "Unavailable"}]}}));
        assert_eq!(only_condition.schema, Schema::Undetermined);
        assert_eq!(only_condition.contract_status, None);
    }

    #[test]
    fn wrong_types_read_as_absent_and_are_reported() {
        let v = PactoView::new(&json!({
            "spec": {"checkIntervalSeconds": "often"},
            "status": {"findings": "none", "observedGeneration": "3", "contractStatus": 7}
        }));
        assert_eq!(v.check_interval_seconds, DEFAULT_CHECK_INTERVAL_SECONDS);
        assert!(v.findings.is_empty());
        assert_eq!(v.observed_generation, None);
        assert!(v.observed_generation_malformed);
        assert_eq!(v.contract_status.as_deref(), Some("7"));
        assert_eq!(v.anomalies.len(), 4, "{:?}", v.anomalies);
        assert!(
            v.anomalies.iter().any(|a| a.starts_with(
                "spec.checkIntervalSeconds \"often\" is not a 32-bit positive integer"
            )),
            "{:?}",
            v.anomalies
        );
    }
}
