//! The `explain stage/NAME` and `explain operation/NAME` reports, like `kubectl describe`: rows
//! of the same shape as the Pacto report ([`crate::pacto::explain::Row`]), raw text (the
//! renderer escapes it), and the same facts as data for `-o json|yaml`.

use super::condition::Computed;
use super::mediated::{appliers, Applier, EXAMINED_APPLIERS};

/// How many appliers the explanation lists (the rules of as many are checked); past it, a
/// count.
const LISTED_APPLIERS: usize = EXAMINED_APPLIERS;
use super::operation::{approvals, approved, gate_meaning, place};
use super::view::{ApprovalView, OperationView, StageView, WrittenCondition};
use super::world::World;
use crate::pacto::explain::{Report, Row, Rows, Tone};
use serde_json::{json, Value};

fn status_tone(status: &str) -> Tone {
    match status {
        "True" => Tone::Good,
        "False" => Tone::Bad,
        _ => Tone::Pending,
    }
}

fn or_none(s: &str) -> String {
    if s.is_empty() {
        "<none>".to_string()
    } else {
        s.to_string()
    }
}

fn written_text(c: Option<&WrittenCondition>) -> String {
    match c {
        None => "<not written>".to_string(),
        Some(c) if c.message.is_empty() => format!("{} {}", c.status, c.reason),
        Some(c) => format!("{} {}: {}", c.status, c.reason, c.message),
    }
}

/// Whether the written condition says what the computed one says (status and reason).
pub fn same(written: Option<&WrittenCondition>, status: &str, reason: &str) -> bool {
    written.is_some_and(|w| w.status == status && w.reason == reason)
}

/// The rows of `explain stage/NAME`.
pub fn stage_rows(stage: &StageView, computed: &Computed, world: &World) -> Vec<Row> {
    let mut r = Rows(Vec::new());
    r.add(
        0,
        "Stage",
        stage.this.describe().replacen("Stage ", "", 1),
        Tone::Plain,
    );
    r.add(0, "Service", or_none(stage.service), Tone::Plain);
    r.add(0, "Environment", or_none(stage.environment), Tone::Plain);
    r.add(
        0,
        "Apply",
        if stage.apply_ref.is_empty() {
            "<none> (spec.applyRef.name)".to_string()
        } else {
            format!("OCIRepository {}/{}", stage.this.namespace, stage.apply_ref)
        },
        Tone::Plain,
    );
    let candidates = match (&stage.upstream_stage, &stage.candidate_repository) {
        (Some(u), _) => format!(
            "upstream Stage {}/{} (its status.offered)",
            u.namespace, u.name
        ),
        (None, Some(c)) => format!("OCIRepository {}/{}", c.namespace, c.name),
        (None, None) => "<none>".to_string(),
    };
    r.add(0, "Candidates", candidates, Tone::Plain);
    r.add(0, "Level", or_none(stage.level), Tone::Plain);
    if !stage.start_level.is_empty() {
        r.add(1, "Start level", stage.start_level, Tone::Plain);
    }
    if stage.frozen {
        r.add(
            1,
            "Frozen",
            "yes: the promoter moves nothing until an unfreeze",
            Tone::Warn,
        );
    }
    r.add(0, "Pointer", or_none(stage.pointer), Tone::Plain);
    r.add(
        0,
        "Published",
        stage.published.len().to_string(),
        Tone::Plain,
    );
    for d in &stage.published {
        r.add(1, "", *d, Tone::Plain);
    }
    r.add(0, "Offered", stage.offered.len().to_string(), Tone::Plain);
    for d in &stage.offered {
        r.add(1, "", *d, Tone::Plain);
    }

    for c in computed.conditions() {
        let written = stage.condition(c.type_);
        let agrees = same(written, c.status, &c.reason);
        r.add(
            0,
            c.type_,
            format!("{} {}: {}", c.status, c.reason, c.message),
            status_tone(c.status),
        );
        r.add(
            1,
            "Written",
            if agrees {
                format!("{} (the same)", written_text(written))
            } else {
                format!(
                    "{} (differs from what is computed here)",
                    written_text(written)
                )
            },
            if agrees { Tone::Plain } else { Tone::Warn },
        );
    }

    match appliers(stage, world) {
        Err(why) => r.add(0, "Appliers", format!("unknown: {why}"), Tone::Pending),
        Ok(found) => {
            r.add(0, "Appliers", found.len().to_string(), Tone::Plain);
            for a in found.iter().take(LISTED_APPLIERS) {
                let via = match a {
                    Applier::Flux(_) => "spec.sourceRef names the apply OCIRepository",
                    Applier::Argo(_) => "labelled for this Stage, deploys to its namespace",
                };
                r.add(1, "", format!("{} ({via})", a.describe()), Tone::Plain);
            }
            if found.len() > LISTED_APPLIERS {
                r.add(
                    1,
                    "",
                    format!(
                        "and {} more (-o json lists them all)",
                        found.len() - LISTED_APPLIERS
                    ),
                    Tone::Plain,
                );
            }
            for k in found.kindless() {
                r.add(
                    1,
                    "Not counted",
                    format!("{}: spec.sourceRef names the apply OCIRepository but has no kind (Flux requires one: GitRepository, OCIRepository or Bucket)", k.this.describe()),
                    Tone::Warn,
                );
            }
        }
    }

    r.add(0, "Rules", String::new(), Tone::Plain);
    for rule in &computed.rules {
        let tone = match rule.verdict {
            "pass" => Tone::Good,
            "fail" => Tone::Bad,
            _ => Tone::Pending,
        };
        r.add(
            1,
            rule.condition,
            format!("{}: {}", rule.verdict, rule.asks),
            tone,
        );
    }
    for f in &computed.failures {
        r.add(0, f.reason, f.message.clone(), Tone::Bad);
        r.add(1, "Object", f.object.clone(), Tone::Plain);
        r.add(1, "Field", f.field.clone(), Tone::Plain);
        r.add(1, "Fix", f.fix.clone(), Tone::Plain);
    }
    for p in &stage.problems {
        r.add(0, "Field error", p.clone(), Tone::Bad);
    }
    for n in world.notes.iter().chain(&computed.unreadable) {
        r.add(0, "Note", n.clone(), Tone::Warn);
    }
    r.0
}

/// `explain stage/NAME -o json|yaml`: the explanation as data. `conditions` is shaped like the
/// `status.conditions` a reconcile would write (`type`, `status`, `reason`, `message`);
/// `appliers` names the first ten appliers (the ones whose rules are checked) and
/// `applierCount` counts them all (null both when the appliers cannot be known).
pub fn stage_json(stage: &StageView, computed: &Computed, world: &World) -> Value {
    let written: Vec<Value> = stage
        .conditions
        .iter()
        .map(|c| json!({"type": c.type_, "status": c.status, "reason": c.reason, "message": c.message}))
        .collect();
    let found = appliers(stage, world).ok();
    let applier_names = found.as_ref().map(|found| {
        found
            .iter()
            .take(LISTED_APPLIERS)
            .map(|a| a.describe())
            .collect::<Vec<_>>()
    });
    json!({
        "apiVersion": "pacto.trianalab.io/v1alpha1",
        "kind": "StageExplanation",
        "stage": {"namespace": stage.this.namespace, "name": stage.this.name},
        "conditions": computed.conditions(),
        "written": written,
        "failures": computed.failures,
        "rules": computed.rules,
        "appliers": applier_names,
        "applierCount": found.as_ref().map(|f| f.len()),
        "pointer": stage.pointer,
        "published": stage.published,
        "offered": stage.offered,
        "problems": stage.problems,
        "notes": world.notes.iter().chain(&computed.unreadable).collect::<Vec<_>>(),
    })
}

/// Which objects of files are explained when no `KIND/NAME` picks one: every object, but the
/// kinds Stages and Operations depend on ([`crate::kinds::is_dependency`]) only when the files
/// hold neither a Stage nor an Operation (then they are read for those, not reported on their
/// own). The order is kept.
pub fn explained(objects: Vec<Value>) -> Vec<Value> {
    let delivery = objects
        .iter()
        .any(|o| crate::kinds::STAGE.is(o) || crate::kinds::OPERATION.is(o));
    if !delivery {
        return objects;
    }
    objects
        .into_iter()
        .filter(|o| !crate::kinds::is_dependency(o))
        .collect()
}

/// The report of one Stage judged against `world`: its rows, its data, and as notes what the
/// world could not know (kinds not installed, objects given twice) and the kinds that could not
/// be read, which leave a condition Unknown.
pub fn stage_report(stage: &StageView, world: &World) -> Report {
    let computed = super::compute(stage, world);
    let mut notes = world.notes.clone();
    notes.extend(computed.unreadable.iter().cloned());
    Report {
        rows: stage_rows(stage, &computed, world),
        data: stage_json(stage, &computed, world),
        notes,
    }
}

/// The report of one Operation: the Stage it names (`spec.stageRef.name`, in the Operation's
/// namespace) among `stages`, the Approvals among `approvals`, and `notes` saying why Stages or
/// Approvals are not known (repeated as `Note` rows and in the data's `notes`).
pub fn operation_report(
    op: &OperationView,
    stages: &[StageView],
    approvals: &[ApprovalView],
    notes: &[String],
) -> Report {
    let stage = stages
        .iter()
        .find(|s| s.this.namespace == op.this.namespace && s.this.name == op.stage);
    let mut rows = operation_rows(op, stage, approvals);
    rows.extend(notes.iter().map(|n| Row {
        indent: 0,
        key: "Note".into(),
        value: n.clone(),
        tone: Tone::Warn,
    }));
    let mut data = operation_json(op, stage, approvals);
    data["notes"] = notes.to_vec().into();
    Report {
        rows,
        data,
        notes: notes.to_vec(),
    }
}

/// The rows of `explain operation/NAME`. `stage` is the Stage it names (None when not found);
/// `all_approvals` every Approval read.
fn operation_rows(
    op: &OperationView,
    stage: Option<&StageView>,
    all_approvals: &[ApprovalView],
) -> Vec<Row> {
    let mut r = Rows(Vec::new());
    let approved = approved(op, all_approvals);
    let p = place(op, stage.map(|s| s.approval_always), approved);
    r.add(
        0,
        "Operation",
        op.this.describe().replacen("Operation ", "", 1),
        Tone::Plain,
    );
    r.add(
        0,
        "Type",
        or_none(op.type_),
        if p.known_type { Tone::Plain } else { Tone::Bad },
    );
    r.add(
        0,
        "Stage",
        match stage {
            Some(s) => format!("{}/{}", s.this.namespace, s.this.name),
            None if op.stage.is_empty() => "<none> (spec.stageRef.name)".to_string(),
            None => format!("{}/{} (not found)", op.this.namespace, op.stage),
        },
        Tone::Plain,
    );
    let target = [
        ("Version", &op.version),
        ("Digest", &op.digest),
        ("Level", &op.level),
        ("Actor", &op.actor),
    ];
    for (k, v) in target {
        if !v.is_empty() {
            r.add(0, k, *v, Tone::Plain);
        }
    }
    if !op.actor_class.is_empty() {
        r.add(1, "Actor class", op.actor_class, Tone::Plain);
    }
    let phase_tone = match op.phase {
        "Succeeded" => Tone::Good,
        "Failed" => Tone::Bad,
        "Held" => Tone::Warn,
        _ => Tone::Pending,
    };
    r.add(
        0,
        "Phase",
        format!("{}: {}", or_none(op.phase), p.meaning),
        phase_tone,
    );
    r.add(1, "Next", p.next.clone(), Tone::Plain);
    r.add(1, "Who may act", p.actor.as_str().to_string(), Tone::Plain);
    if !op.message.is_empty() {
        r.add(0, "Message", op.message, Tone::Plain);
    }
    if !op.outcome.is_empty() {
        r.add(0, "Outcome", op.outcome, Tone::Plain);
    }
    r.add(0, "Verdicts", op.verdicts.len().to_string(), Tone::Plain);
    for v in &op.verdicts {
        let tone = match v.result {
            "Pass" => Tone::Good,
            "Fail" => Tone::Bad,
            _ => Tone::Pending,
        };
        let head = if v.message.is_empty() {
            format!("{} ({})", v.result, or_none(v.phase))
        } else {
            format!("{} ({}): {}", v.result, or_none(v.phase), v.message)
        };
        r.add(1, v.gate, head, tone);
        r.add(1, "", gate_meaning(v.gate, v.result), Tone::Plain);
    }
    let mine = approvals(op, all_approvals);
    if !mine.is_empty() {
        r.add(0, "Approvals", mine.len().to_string(), Tone::Plain);
        for (a, counts) in mine {
            let accepted = if a.accept_unknown.is_empty() {
                String::new()
            } else {
                format!(", accepts unknown {}", a.accept_unknown.join(", "))
            };
            r.add(
                1,
                a.this.name,
                format!(
                    "{}{accepted}: {}",
                    or_none(a.decision),
                    if counts {
                        "counts"
                    } else {
                        "does not cover every Unknown gate, or does not approve"
                    }
                ),
                if counts { Tone::Good } else { Tone::Warn },
            );
        }
    }
    for p in problems(op, all_approvals) {
        r.add(0, "Field error", p, Tone::Bad);
    }
    r.0
}

/// The field errors an Operation's report names: its own, then those of each Approval of its
/// namespace that is for it, or that names no Operation (its `spec.operationRef.name` is
/// missing or of the wrong type, so it may be meant for this one), each prefixed with the
/// Approval (`Approval prod/ok: spec.acceptUnknown: expected a list, found a string`).
fn problems(op: &OperationView, all_approvals: &[ApprovalView]) -> Vec<String> {
    let mut out = op.problems.clone();
    for a in all_approvals {
        let mine = a.this.namespace == op.this.namespace
            && (a.operation == op.this.name || a.operation.is_empty());
        if mine {
            let who = a.this.describe();
            out.extend(a.problems.iter().map(|p| format!("{who}: {p}")));
        }
    }
    out
}

/// `explain operation/NAME -o json|yaml`: the explanation as data.
fn operation_json(
    op: &OperationView,
    stage: Option<&StageView>,
    all_approvals: &[ApprovalView],
) -> Value {
    let approved = approved(op, all_approvals);
    let p = place(op, stage.map(|s| s.approval_always), approved);
    let verdicts: Vec<Value> = op
        .verdicts
        .iter()
        .map(|v| {
            json!({"gate": v.gate, "phase": v.phase, "result": v.result, "message": v.message,
                        "meaning": gate_meaning(v.gate, v.result)})
        })
        .collect();
    let approvals: Vec<Value> = approvals(op, all_approvals)
        .into_iter()
        .map(|(a, counts)| json!({"name": a.this.name, "decision": a.decision, "acceptUnknown": a.accept_unknown, "counts": counts}))
        .collect();
    json!({
        "apiVersion": "pacto.trianalab.io/v1alpha1",
        "kind": "OperationExplanation",
        "operation": {"namespace": op.this.namespace, "name": op.this.name},
        "type": op.type_,
        "stage": {"namespace": op.this.namespace, "name": op.stage},
        "phase": op.phase,
        "place": p,
        "verdicts": verdicts,
        "approvals": approvals,
        "problems": problems(op, all_approvals),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delivery::{compute, Snapshot};
    use crate::testutil::docs;

    /// A Flux Stage in a cluster without Argo CD (`testdata/cases.yaml`, "Argo CD not installed
    /// is no applier, not an error"): Ready and Mediated hold, and the report carries the note
    /// the reason table gives; with the Applications unreadable, Mediated is Unknown and the
    /// report says why.
    #[test]
    fn a_stage_report_carries_what_the_world_could_not_know() {
        let all = docs(include_str!("testdata/base-flux.yaml"));
        let mut snapshot = Snapshot::from_objects(&all);
        snapshot.applications = None;
        let world = World::new(&snapshot);
        let stage = StageView::new(&snapshot.stages[0]);
        let r = stage_report(&stage, &world);
        assert_eq!(
            r.notes,
            ["Applications (argoproj.io) are not installed in this cluster: none apply"]
        );
        assert_eq!(r.data["kind"], json!("StageExplanation"));
        assert_eq!(r.data["notes"], json!(r.notes));
        assert_eq!(r.rows, stage_rows(&stage, &compute(&stage, &world), &world));
        snapshot.applications = Some(Err("forbidden".into()));
        let world = World::new(&snapshot);
        let r = stage_report(&stage, &world);
        let c = compute(&stage, &world);
        assert_eq!(c.mediated.status, "Unknown");
        assert_eq!(r.notes, c.unreadable);
        assert!(
            r.notes.iter().any(|n| n.contains("forbidden")),
            "{:?}",
            r.notes
        );
    }

    /// The held promotion of `examples/delivery/operation-held.yaml` ("Delivery reference:
    /// setup and gates": an Approval that accepts the Unknown gate counts): the Stage it names is
    /// the one of its own namespace, and what could not be read is a warning row and a note.
    #[test]
    fn an_operation_report_finds_its_stage_in_its_namespace() {
        let all = docs(include_str!(
            "../../../examples/delivery/operation-held.yaml"
        ));
        let op = OperationView::new(&all[0]);
        let approvals = [ApprovalView::new(&all[1])];
        let stage = |ns: &str| {
            StageView::new(crate::testutil::kept(
                json!({"apiVersion": "delivery.pacto.trianalab.io/v1alpha1",
                "kind": "Stage", "metadata": {"name": "payments", "namespace": ns}, "spec": {}}),
            ))
        };
        let stages = [stage("payments-prod"), stage("payments-test")];
        let notes =
            ["Stages (delivery.pacto.trianalab.io) could not be read: forbidden".to_string()];
        let r = operation_report(&op, &stages, &approvals, &notes);
        assert_eq!(
            value_of(&r, "Stage").as_deref(),
            Some("payments-test/payments")
        );
        assert_eq!(value_of(&r, "Approvals").as_deref(), Some("1"));
        let last = r.rows.last().unwrap();
        assert_eq!((last.key.as_str(), last.tone), ("Note", Tone::Warn));
        assert_eq!(last.value, notes[0]);
        assert_eq!(r.data["notes"], json!(notes));
        assert_eq!(r.notes, notes);
        // Not in its namespace: not found.
        let r = operation_report(&op, &stages[..1], &approvals, &[]);
        assert_eq!(
            value_of(&r, "Stage").as_deref(),
            Some("payments-test/payments (not found)")
        );
    }

    /// An Approval of the wrong type for an Operation, or one that names no Operation in its
    /// namespace, is a field error of the Operation's report with the Approval and the path
    /// (rows and data); one in another namespace or for another Operation is not.
    #[test]
    fn an_approval_of_the_wrong_type_is_a_field_error_of_its_operation() {
        let all = docs(include_str!(
            "../../../examples/delivery/operation-held.yaml"
        ));
        let op = OperationView::new(&all[0]);
        let ns = op.this.namespace;
        let approval = |name: &str, namespace: &str, spec: Value| {
            ApprovalView::new(crate::testutil::kept(json!({
                "apiVersion": "delivery.pacto.trianalab.io/v1alpha1", "kind": "Approval",
                "metadata": {"name": name, "namespace": namespace}, "spec": spec})))
        };
        let approvals = [
            approval(
                "typo",
                ns,
                json!({"operationRef": {"name": op.this.name}, "decision": "approve", "acceptUnknown": "pacto.suites"}),
            ),
            approval(
                "nameless",
                ns,
                json!({"operationRef": {"name": 12}, "decision": "approve"}),
            ),
            approval(
                "elsewhere",
                "other",
                json!({"operationRef": {"name": op.this.name}, "decision": 1}),
            ),
            approval(
                "another",
                ns,
                json!({"operationRef": {"name": "payments-2-0-0"}, "decision": 1}),
            ),
        ];
        let r = operation_report(&op, &[], &approvals, &[]);
        let errors: Vec<&str> = r
            .rows
            .iter()
            .filter(|row| row.key == "Field error")
            .map(|row| row.value.as_str())
            .collect();
        let want = [
            format!("Approval {ns}/typo: spec.acceptUnknown: expected a list, found a string"),
            format!(
                "Approval {ns}/nameless: spec.operationRef.name: expected a string, found a number"
            ),
        ];
        assert_eq!(errors, want);
        assert_eq!(r.data["problems"], json!(want));
    }

    /// A Stage's setup given as files ("Delivery reference: setup and gates", "Set up a
    /// Stage"): the Stage is explained and what it depends on is read for it; the same
    /// OCIRepository alone is explained on its own, and so is a Pacto beside a Stage.
    #[test]
    fn what_files_explain() {
        let kinds = |objects: Vec<Value>| -> Vec<String> {
            explained(objects)
                .iter()
                .map(|o| o["kind"].as_str().unwrap().to_string())
                .collect()
        };
        let mut setup = docs(include_str!("testdata/base-flux.yaml"));
        setup.push(
            json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
            "metadata": {"name": "payments"}}),
        );
        assert_eq!(kinds(setup.clone()), ["Stage", "Pacto"]);
        let repos: Vec<Value> = setup
            .into_iter()
            .filter(|o| o["kind"] == json!("OCIRepository"))
            .collect();
        assert_eq!(kinds(repos), ["OCIRepository", "OCIRepository"]);
        let held = docs(include_str!(
            "../../../examples/delivery/operation-held.yaml"
        ));
        assert_eq!(kinds(held), ["Operation"]);
    }

    fn value_of(r: &Report, key: &str) -> Option<String> {
        r.rows
            .iter()
            .find(|row| row.key == key)
            .map(|row| row.value.clone())
    }
}
