//! Configuration checks: is a gate configured, or does it only look configured? Each check has a
//! stable ID (docs/doctor.md lists them: F.. Flux, A.. Argo CD, O.. operator and object, C..
//! CoderTemplateTest, S.. delivery Stages), a severity, the object it is about, the evidence that
//! decided it and the fix. Beyond reading, some checks run the configured gates with this crate's
//! engines on probe objects ([`probes`]). Pure: objects, cluster facts and the clock come in,
//! findings go out.

pub mod argocd;
pub mod cluster;
pub mod delivery;
pub mod flux;
pub mod near;
pub mod objects;
pub mod probes;

#[cfg(test)]
mod tests;

use serde::Serialize;
use serde_json::Value;

/// How much a finding matters: an error means the gate does not do what it looks like it does;
/// a warning that it may not; info is worth knowing and never changes an exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    /// `error`, `warning`, `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// One finding of one check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The check's stable ID, e.g. `A01`.
    pub id: &'static str,
    pub severity: Severity,
    /// The object the finding is about, e.g. `ConfigMap argocd/argocd-cm`.
    pub object: String,
    /// What was read that decided it: the key, the expression, the field and its value.
    pub evidence: String,
    /// The finding in one sentence (raw text; renderers escape it).
    pub finding: String,
    /// The change that fixes it (a key, a line, a command); empty when there is nothing to do.
    pub fix: String,
}

/// Findings of one check that differ only in the probe they were seen on, merged into one:
/// `template` holds `{}` where the probes' names go.
#[derive(Default)]
pub(crate) struct Merged {
    groups: Vec<(Finding, String, Vec<String>, Vec<String>)>,
}

impl Merged {
    pub fn add(&mut self, base: Finding, template: &str, probe: &str, evidence: String) {
        match self
            .groups
            .iter_mut()
            .find(|(f, t, _, _)| f.id == base.id && f.object == base.object && t == template)
        {
            Some((_, _, probes, evidences)) => {
                probes.push(probe.to_string());
                evidences.push(evidence);
            }
            None => self.groups.push((
                base,
                template.to_string(),
                vec![probe.to_string()],
                vec![evidence],
            )),
        }
    }

    pub fn finish(self) -> Vec<Finding> {
        self.groups
            .into_iter()
            .map(|(mut f, template, probes, evidences)| {
                let names = match probes.len() {
                    1 => probes[0].clone(),
                    n => format!("{} and {}", probes[..n - 1].join(", "), probes[n - 1]),
                };
                f.finding = template.replacen("{}", &names, 1);
                f.evidence = evidences.join("; ");
                f
            })
            .collect()
    }
}

impl Finding {
    /// A finding; `object` as it is named to the reader (`ConfigMap argocd/argocd-cm`).
    pub fn new(
        id: &'static str,
        severity: Severity,
        object: &str,
        evidence: String,
        finding: String,
        fix: String,
    ) -> Finding {
        Finding {
            id,
            severity,
            object: object.to_string(),
            evidence,
            finding,
            fix,
        }
    }
}

/// What a cluster tells beyond its objects (`doctor --cluster`).
#[derive(Debug, Clone, Default)]
pub struct ClusterFacts {
    /// When the Argo CD application controller started, Unix seconds, and its name.
    pub controller_started: Option<(i64, String)>,
    /// When argocd-cm's Pacto health key was last written (its managedFields entry), Unix seconds.
    pub pacto_key_written: Option<i64>,
    /// The OpenAPI v3 document the cluster serves for the Stage's group version
    /// (`/openapi/v3/apis/delivery.pacto.trianalab.io/v1alpha1`), when the Stage kind is served
    /// and the document could be read: how the API server merges `status.conditions` (S05).
    pub stage_schema: Option<Value>,
}

/// Everything doctor reads.
#[derive(Debug, Clone, Default)]
pub struct Input {
    /// The objects: argocd-cm, argocd-cmd-params-cm, Kustomizations, HelmReleases, Pactos,
    /// CoderTemplateTests, Stages, OCIRepositories, Applications (others are ignored).
    pub objects: Vec<Value>,
    pub cluster: ClusterFacts,
    /// Kinds that could not be read (a note each), e.g. `applications.argoproj.io: forbidden`.
    pub unreadable: Vec<(String, String)>,
    /// The operator's stabilization window, seconds.
    pub stabilization_window: i64,
    /// The clock, Unix seconds.
    pub now_unix: i64,
    /// The objects were read from a cluster (not files): their state is live.
    pub live: bool,
    /// How many upstream references a Stage's chain is followed through (None: the default,
    /// [`crate::delivery::ready::DEFAULT_MAX_UPSTREAM_DEPTH`]; `--max-upstream-depth`).
    pub max_upstream_depth: Option<usize>,
}

/// The findings, grouped by object (objects in the order met, findings by severity then ID), and
/// notes on what was not checked.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    pub findings: Vec<Finding>,
    pub notes: Vec<String>,
}

impl Report {
    /// kubectl's convention for checks: 0 when no finding is a warning or an error, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        u8::from(self.findings.iter().any(|f| f.severity != Severity::Info))
    }
}

fn kind_of(o: &Value) -> (String, String) {
    let g = crate::k8s::gvk_of(o);
    (g.group, g.kind)
}

/// Runs every check on the input.
pub fn run(input: &Input) -> Report {
    let objs = &input.objects;
    let is = |o: &Value, group: &str, kind: &str| {
        let (g, k) = kind_of(o);
        g == group && k == kind
    };
    let name = |o: &Value| {
        o.pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let of = |group: &str, kind: &str| {
        objs.iter()
            .filter(|o| is(o, group, kind))
            .collect::<Vec<_>>()
    };
    let configmaps = of("", "ConfigMap");
    let argocd_cms: Vec<&Value> = configmaps
        .iter()
        .copied()
        .filter(|o| name(o) == "argocd-cm")
        .collect();
    let params: Vec<&Value> = configmaps
        .iter()
        .copied()
        .filter(|o| name(o) == "argocd-cmd-params-cm")
        .collect();
    let kustomizations: Vec<&Value> = objs
        .iter()
        .filter(|o| crate::kinds::KUSTOMIZATION.is(o) || crate::kinds::HELM_RELEASE.is(o))
        .collect();
    let pactos = of(crate::pacto::GROUP, crate::pacto::KIND);
    let ctts = of(
        crate::kinds::CODER_TEMPLATE_TEST.group,
        crate::kinds::CODER_TEMPLATE_TEST.kind,
    );
    let stages = of(crate::kinds::STAGE.group, crate::kinds::STAGE.kind);
    let repos = of(
        crate::kinds::OCI_REPOSITORY.group,
        crate::kinds::OCI_REPOSITORY.kind,
    );
    let apps = of(
        crate::kinds::APPLICATION.group,
        crate::kinds::APPLICATION.kind,
    );
    let mut report = Report::default();
    let mut findings = Vec::new();

    // Argo CD.
    for cm in &argocd_cms {
        let cm = argocd::ArgoCm::new(cm);
        findings.extend(argocd::static_checks(
            &cm,
            !pactos.is_empty(),
            !ctts.is_empty(),
        ));
        findings.extend(argocd::evaluated(&cm, input.now_unix));
        if let Ok(overrides) = &cm.overrides {
            let group_kinds: Vec<String> = objs
                .iter()
                .map(|o| crate::k8s::gvk_of(o).group_kind())
                .collect();
            findings.extend(argocd::random_wildcards(overrides, &group_kinds));
        }
        if let (Some((started, who)), Some(written)) = (
            &input.cluster.controller_started,
            input.cluster.pacto_key_written,
        ) {
            findings.extend(argocd::restart_needed(&cm, written, *started, who));
        }
    }
    for p in &params {
        findings.extend(argocd::params_checks(p));
    }

    // Flux.
    let max_interval = pactos
        .iter()
        .map(|p| crate::pacto::view::PactoView::new(p).check_interval_seconds)
        .max()
        .unwrap_or(crate::pacto::view::DEFAULT_CHECK_INTERVAL_SECONDS);
    let max_test_timeout = ctts
        .iter()
        .filter_map(|t| t.pointer("/spec/timeoutSeconds").and_then(Value::as_i64))
        .max()
        .unwrap_or(900);
    for k in &kustomizations {
        let parsed = match crate::flux::kustomization::parse(k) {
            Ok(p) => p,
            Err(e) => {
                findings.push(Finding {
                    id: "F05",
                    severity: Severity::Error,
                    object: format!("{} {}", kind_of(k).1, name(k)),
                    evidence: e.clone(),
                    finding: format!("cannot be read as Flux reads it: {e}"),
                    fix: "fix the field named".to_string(),
                });
                continue;
            }
        };
        let inventory: Option<Vec<String>> = k
            .pointer("/status/inventory/entries")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|e| e.get("id").and_then(Value::as_str).map(str::to_string))
                    .collect()
            });
        let ctx = flux::Context {
            applies_pactos: inventory
                .as_ref()
                .map(|ids| ids.iter().any(|i| i.ends_with("_pacto.trianalab.io_Pacto"))),
            applies_ctts: inventory.as_ref().map(|ids| {
                ids.iter()
                    .any(|i| i.ends_with("_coder.com_CoderTemplateTest"))
            }),
            pactos_read: !pactos.is_empty(),
            max_check_interval: max_interval,
            stabilization_window: input.stabilization_window,
            max_test_timeout,
        };
        findings.extend(flux::checks(&parsed, &ctx, input.now_unix));
    }

    // The objects.
    let now = jiff::Timestamp::from_second(input.now_unix).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    for p in &pactos {
        findings.extend(objects::pacto(p, now, input.live));
    }
    for t in &ctts {
        findings.extend(objects::coder_template_test(t));
    }

    // Delivery.
    if !stages.is_empty() {
        // The same snapshot `get stages -f` reads: each kind a Stage depends on, by its own
        // group and kind (a HelmRelease, checked above with the Kustomizations, applies no
        // OCIRepository for a Stage).
        let snapshot = crate::delivery::Snapshot::from_objects(objs);
        let mut world = crate::delivery::World::new(&snapshot);
        if let Some(depth) = input.max_upstream_depth {
            world = world.with_max_upstream_depth(depth);
        }
        let labelled: Vec<Value> = repos
            .iter()
            .chain(&kustomizations)
            .chain(&apps)
            .map(|o| (*o).clone())
            .collect();
        findings.extend(delivery::checks(&world, &labelled));
    }
    if let Some(doc) = &input.cluster.stage_schema {
        findings.extend(delivery::conditions_ownership(doc));
    }

    for (kind, why) in &input.unreadable {
        report.notes.push(format!("{kind} not checked: {why}"));
    }

    // Group by object, in the order objects were met; errors first within one.
    let mut order: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for f in &findings {
        let next = order.len();
        order.entry(f.object.clone()).or_insert(next);
    }
    findings.sort_by_key(|f| (order.get(&f.object).copied(), f.severity, f.id));
    findings.dedup();
    report.findings = findings;
    report
}

/// The cluster facts behind A08, from the objects that hold them: when argocd-cm's Pacto health
/// key was last written (the newest `metadata.managedFields[]` entry whose `fieldsV1` owns
/// `f:data` → `f:<key>`), and when the application controller started (the earliest
/// `status.startTime` of its pods: one that started before the write runs without the key).
pub fn cluster_facts(argocd_cm: Option<&Value>, controller_pods: &[Value]) -> ClusterFacts {
    let key = format!("f:{}", argocd::PACTO_KEY);
    let unix = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .and_then(|t| crate::k8s::time::parse_go_rfc3339(t).ok())
            .map(|ns| (ns / 1_000_000_000) as i64)
    };
    let pacto_key_written = argocd_cm
        .and_then(|cm| cm.pointer("/metadata/managedFields"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|m| {
            m.pointer("/fieldsV1/f:data")
                .and_then(|d| d.get(&key))
                .is_some()
        })
        .filter_map(|m| unix(m.get("time")))
        .max();
    let controller_started = controller_pods
        .iter()
        .filter_map(|p| {
            let name = p
                .pointer("/metadata/name")
                .and_then(Value::as_str)?
                .to_string();
            Some((unix(p.pointer("/status/startTime"))?, name))
        })
        .min();
    ClusterFacts {
        controller_started,
        pacto_key_written,
        stage_schema: None,
    }
}

#[cfg(test)]
mod facts_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_write_time_from_managed_fields_and_the_earliest_controller_start() {
        let cm = json!({"metadata": {"managedFields": [
            {"manager": "kubectl-patch", "time": "2026-11-29T11:00:00Z",
             "fieldsV1": {"f:data": {"f:resource.customizations.health.pacto.trianalab.io_Pacto": {}}}},
            {"manager": "argocd-server", "time": "2026-11-29T11:30:00Z",
             "fieldsV1": {"f:data": {"f:url": {}}}}]}});
        let pods = [
            json!({"metadata": {"name": "argocd-application-controller-1"}, "status": {"startTime": "2026-11-29T10:30:00Z"}}),
            json!({"metadata": {"name": "argocd-application-controller-0"}, "status": {"startTime": "2026-11-29T10:00:00Z"}}),
        ];
        let f = cluster_facts(Some(&cm), &pods);
        assert_eq!(f.pacto_key_written, Some(1_795_950_000));
        assert_eq!(
            f.controller_started,
            Some((1_795_946_400, "argocd-application-controller-0".to_string()))
        );
        assert_eq!(cluster_facts(None, &[]).controller_started, None);
    }
}
