//! The decision table of `testdata/gate_decisions.yaml` ("GitOps promotion gates", the status
//! evaluator of fluxcd/pkg `runtime/cel/status_evaluator.go`, gitops-engine and fluxcd/pkg for the
//! gate words), run through the real [`decide`] for every contractStatus × freshness × Argo CD side
//! × Flux side × Warning knob.

use super::*;
use serde_json::json;

const TABLE: &str = include_str!("../testdata/gate_decisions.yaml");

fn table() -> Value {
    serde_saphyr::from_str(TABLE).expect("gate_decisions.yaml is valid YAML")
}

fn s(v: &Value) -> &str {
    v.as_str()
        .unwrap_or_else(|| panic!("expected a string, got {v}"))
}

/// A Pacto at generation 3 in the given state and freshness.
fn pacto(status: &Value, freshness: &str) -> Value {
    let mut o = json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
        "metadata": {"name": "orders", "namespace": "shop", "generation": 3},
        "spec": {"target": {}}});
    if !status.is_null() {
        let mut st = status.clone();
        match freshness {
            "fresh" => st["observedGeneration"] = json!(3),
            "stale" => st["observedGeneration"] = json!(2),
            "unobserved" => {}
            other => panic!("unknown freshness {other}"),
        }
        o["status"] = st;
    }
    o
}

fn argo_side(side: &str, warning_blocks: bool) -> ArgoGate {
    let cm = |data: Value| json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "argocd-cm"}, "data": data});
    match side {
        "script" => ArgoGate::recommended("table", warning_blocks, 0),
        "no-key" => ArgoGate::from_configmap(&cm(json!({})), "argocd-cm", 0),
        // strconv.ParseBool refuses "maybe": Argo refuses the whole configuration.
        "refused" => ArgoGate::from_configmap(
            &cm(json!({"resource.customizations.useOpenLibs.pacto.trianalab.io_Pacto": "maybe"})),
            "argocd-cm",
            0,
        ),
        other => panic!("unknown Argo CD side {other}"),
    }
}

fn kustomization(wait: bool, exprs: Value) -> Value {
    json!({"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
        "metadata": {"name": "apps", "namespace": "flux-system"},
        "spec": {"interval": "10m", "wait": wait, "healthCheckExprs": exprs}})
}

fn flux_side(side: &str, warning_blocks: bool) -> FluxGate {
    let one = |k: Value| FluxGate {
        kustomizations: vec![FluxKustomization::new(&k, false, 0).expect("a Kustomization")],
        ..FluxGate::recommended("table", warning_blocks, 0)
    };
    let recommended_exprs = || {
        let k = recommended_kustomization(warning_blocks);
        let e = k.exprs.iter().find(|e| e.kind == "Pacto").unwrap();
        json!([{"apiVersion": e.api_version, "kind": "Pacto", "current": e.current, "failed": e.failed}])
    };
    match side {
        "exprs" => FluxGate::recommended("table", warning_blocks, 0),
        "kstatus" => one(kustomization(true, json!([]))),
        "not-waited" => one(kustomization(false, recommended_exprs())),
        "unapplied" => FluxGate {
            complete: true,
            ..FluxGate::recommended("table", warning_blocks, 0)
        },
        "invalid" => one(kustomization(
            true,
            json!([{"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto", "current": "status.("}]),
        )),
        other => panic!("unknown Flux side {other}"),
    }
}

fn word(v: &Value, table: &Value, side: &str) -> GateWord {
    match s(&table["gate_words"][side][s(v)]) {
        "pass" => GateWord::Pass,
        "hold" => GateWord::Hold,
        "fail" => GateWord::Fail,
        other => panic!("unknown gate word {other}"),
    }
}

fn outcome(w: &str) -> GateWord {
    match w {
        "none" => GateWord::None,
        "pass" => GateWord::Pass,
        "hold" => GateWord::Hold,
        "fail" => GateWord::Fail,
        other => panic!("unknown outcome {other}"),
    }
}

#[test]
fn every_state_freshness_and_gate_configuration() {
    let t = table();
    let mut checked = 0;
    for state in t["states"].as_array().unwrap() {
        let name = s(&state["name"]);
        let freshnesses: Vec<&str> = ["none", "fresh", "stale", "unobserved"]
            .into_iter()
            .filter(|f| state.get(*f).is_some())
            .collect();
        assert!(!freshnesses.is_empty(), "{name}: no freshness rows");
        for freshness in freshnesses {
            let obj = pacto(
                &state["status"],
                if freshness == "none" {
                    "fresh"
                } else {
                    freshness
                },
            );
            for warning_blocks in [false, true] {
                let row = match (warning_blocks, state.get("warning_blocks")) {
                    (true, Some(wb)) => &wb[freshness],
                    _ => &state[freshness],
                };
                for argo in t["argo_sides"].as_object().unwrap().keys() {
                    for flux in t["flux_sides"].as_object().unwrap().keys() {
                        let case = format!(
                            "{name} / {freshness} / argo {argo} / flux {flux} / warning blocks {warning_blocks}"
                        );
                        let d = decide(
                            &argo_side(argo, warning_blocks),
                            &flux_side(flux, warning_blocks),
                            &obj,
                        );
                        // Argo CD.
                        let want_argo = match &t["argo_sides"][argo] {
                            Value::Null => {
                                let h = d.argo.as_ref().and_then(|a| a.health.as_ref());
                                let h = h.unwrap_or_else(|| panic!("{case}: no Argo health"));
                                assert_eq!(h.status, s(&row["argo"][0]), "{case}: Argo status");
                                assert_eq!(h.message, s(&row["argo"][1]), "{case}: Argo message");
                                word(&row["argo"][0], &t, "argo")
                            }
                            w => outcome(s(w)),
                        };
                        assert_eq!(d.argo_outcome(), want_argo, "{case}: Argo gate");
                        // Flux.
                        let want_flux = match t["flux_sides"][flux].as_str() {
                            None => {
                                let v = d.flux[0].verdict.as_ref().expect("a verdict");
                                assert_eq!(
                                    v.status.as_str(),
                                    s(&row["flux"]),
                                    "{case}: Flux status"
                                );
                                word(&row["flux"], &t, "flux")
                            }
                            Some("kstatus") => {
                                let v = d.flux[0].verdict.as_ref().expect("a verdict");
                                assert_eq!(
                                    v.status.as_str(),
                                    s(&row["kstatus"]),
                                    "{case}: kstatus status"
                                );
                                match s(&row["kstatus"]) {
                                    // A kstatus Current never read the verdict: no gate.
                                    "Current" => GateWord::None,
                                    _ => word(&row["kstatus"], &t, "flux"),
                                }
                            }
                            Some(w) => outcome(w),
                        };
                        assert_eq!(d.flux_outcome(), want_flux, "{case}: Flux gate");
                        // The GATE word: one word when both sides agree, else both.
                        let gate = if want_argo == want_flux {
                            want_argo.as_str().to_string()
                        } else {
                            format!("argo:{} flux:{}", want_argo.as_str(), want_flux.as_str())
                        };
                        assert_eq!(d.gate_word(), gate, "{case}: GATE");
                        checked += 1;
                    }
                }
            }
        }
    }
    // 12 states: one without status (1 freshness), eleven with 3 → 34 rows, × 2 knobs × 3 Argo
    // sides × 5 Flux sides.
    assert_eq!(checked, 34 * 2 * 3 * 5);
}

/// Each gate word of the table, status by status, against the two functions that decide them.
#[test]
fn gate_words_per_status() {
    let t = table();
    for (status, w) in t["gate_words"]["argo"].as_object().unwrap() {
        let v = ArgoVerdict {
            health: Some(crate::argo::HealthStatus::new(status.as_str(), "")),
            decider: crate::argo::health::Decider::BuiltinGo,
            error: None,
            open_libs: false,
            printed: Vec::new(),
            shadows: Vec::new(),
            random_pick: false,
        };
        assert_eq!(outcome_of(argo_gate(&v)), outcome(s(w)), "Argo {status}");
    }
    for (status, w) in t["gate_words"]["flux"].as_object().unwrap() {
        let k = [
            KStatus::Current,
            KStatus::InProgress,
            KStatus::Unknown,
            KStatus::Failed,
            KStatus::Terminating,
        ]
        .into_iter()
        .find(|k| k.as_str() == status)
        .unwrap_or_else(|| panic!("no kstatus status {status}"));
        let v = FluxVerdict {
            status: k,
            message: String::new(),
            source: crate::flux::health::FluxSource::Kstatus,
            error: None,
            decided: None,
        };
        assert_eq!(outcome_of(flux_gate(&v)), outcome(s(w)), "Flux {status}");
    }
}

fn outcome_of(g: Gate) -> GateWord {
    match g {
        Gate::Pass => GateWord::Pass,
        Gate::Hold => GateWord::Hold,
        Gate::Fail => GateWord::Fail,
    }
}

/// The phase table of "Gate template promotion with GitOps" through the recommended
/// CoderTemplateTest gates.
#[test]
fn coder_template_test_phases() {
    let t = table();
    let cases: Value = serde_saphyr::from_str(include_str!("../testdata/ctt_decisions.yaml"))
        .expect("ctt_decisions.yaml is valid YAML");
    let (argo, flux) = (
        ArgoGate::recommended("table", false, 0),
        FluxGate::recommended("table", false, 0),
    );
    let cases = cases["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 11);
    for c in cases {
        let name = s(&c["name"]);
        let mut obj = json!({"apiVersion": "coder.com/v1alpha1", "kind": "CoderTemplateTest",
            "metadata": {"name": "docker-v2", "namespace": "coder", "generation": 2}});
        if !c["status"].is_null() {
            obj["status"] = c["status"].clone();
        }
        if c["deleting"] == json!(true) {
            obj["metadata"]["deletionTimestamp"] = json!("2026-11-29T12:00:00Z");
        }
        let d = decide(&argo, &flux, &obj);
        let h = d.argo.as_ref().and_then(|a| a.health.clone()).unwrap();
        assert_eq!(
            (h.status.as_str(), h.message.as_str()),
            (s(&c["argo"][0]), s(&c["argo"][1])),
            "{name}: Argo"
        );
        let v = d.flux[0].verdict.as_ref().unwrap();
        assert_eq!(v.status.as_str(), s(&c["flux"]), "{name}: Flux");
        assert_eq!(d.argo_outcome(), word(&c["argo"][0], &t, "argo"), "{name}");
        assert_eq!(d.flux_outcome(), word(&c["flux"], &t, "flux"), "{name}");
    }
}
