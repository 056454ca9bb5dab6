//! The plan of a one-shot reconcile: for each Stage, the `Ready` and `Mediated` conditions that
//! [`crate::delivery::compute`] gives, compared with what its status holds, and the write that
//! brings it there — or none when it already says it. Pure: the objects and the time come in.
//!
//! Rules (metav1.Condition conventions, apimachinery `meta.SetStatusCondition`):
//! `lastTransitionTime` changes only when a condition's status changes; `observedGeneration`
//! (of each condition and of the status) is the Stage's `metadata.generation`; conditions of
//! other types are never touched.

use super::schema::ListType;
use crate::delivery::condition::Condition;
use crate::delivery::view::{StageView, WrittenCondition};
use crate::delivery::{compute, World};
use serde_json::{json, Value};

/// How a change is written.
#[derive(Debug, Clone, PartialEq)]
pub enum Write {
    /// Server-side apply of the status subresource (field manager `kubectl-pacto`): the body
    /// names only the owned fields; the list-map merge keeps other writers' conditions.
    Apply(Value),
    /// JSON merge patch of the status subresource carrying `metadata.resourceVersion`: the API
    /// server refuses it (409) if the Stage changed since it was read, so the whole list it
    /// writes (the others' conditions kept, ours replaced) cannot drop a concurrent write.
    GuardedMerge(Value),
}

impl Write {
    /// The body sent.
    pub fn body(&self) -> &Value {
        match self {
            Write::Apply(b) | Write::GuardedMerge(b) => b,
        }
    }
}

/// What the reconcile does with one Stage.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub namespace: String,
    pub name: String,
    /// The computed conditions, Ready then Mediated.
    pub conditions: [Condition; 2],
    /// None: the status already says it; no request.
    pub write: Option<Write>,
    /// Why it is written: which condition or field differs.
    pub why: Vec<String>,
}

fn same(w: Option<&WrittenCondition>, c: &Condition, generation: Option<i64>) -> bool {
    w.is_some_and(|w| {
        w.status == c.status
            && w.reason == c.reason
            && w.message == c.message
            && w.observed_generation == generation
    })
}

/// The condition object as written: type, status, observedGeneration, lastTransitionTime (kept
/// when the status did not change), reason, message.
fn condition_object(
    c: &Condition,
    written: Option<&WrittenCondition>,
    generation: Option<i64>,
    now: &str,
) -> Value {
    let transition = match written {
        Some(w) if w.status == c.status && !w.last_transition_time.is_empty() => {
            w.last_transition_time.clone()
        }
        _ => now.to_string(),
    };
    let mut o = json!({"type": c.type_, "status": c.status, "lastTransitionTime": transition,
                       "reason": c.reason, "message": c.message});
    if let Some(g) = generation {
        o["observedGeneration"] = json!(g);
    }
    o
}

/// The change for one Stage object. `now` is RFC 3339 (`2026-11-29T12:00:00Z`).
pub fn plan_stage(obj: &Value, world: &World, list_type: ListType, now: &str) -> Change {
    let stage = StageView::new(obj);
    let computed = compute(&stage, world);
    let generation = stage.generation;
    let ours = [computed.ready.clone(), computed.mediated.clone()];
    let mut why = Vec::new();
    for c in &ours {
        let w = stage.condition(c.type_);
        if !same(w, c, generation) {
            why.push(match w {
                None => format!("{} is not written", c.type_),
                Some(w) if w.status != c.status || w.reason != c.reason => format!(
                    "{} {} {} becomes {} {}",
                    c.type_, w.status, w.reason, c.status, c.reason
                ),
                Some(w) if w.observed_generation != generation => format!(
                    "{} was computed at generation {}",
                    c.type_,
                    w.observed_generation
                        .map(|g| g.to_string())
                        .unwrap_or_else(|| "<none>".into())
                ),
                Some(_) => format!("{}'s message changes", c.type_),
            });
        }
    }
    if stage.observed_generation != generation {
        why.push(format!(
            "status.observedGeneration {} becomes {}",
            stage
                .observed_generation
                .map(|g| g.to_string())
                .unwrap_or_else(|| "<none>".into()),
            generation
                .map(|g| g.to_string())
                .unwrap_or_else(|| "<none>".into())
        ));
    }
    let write = (!why.is_empty()).then(|| {
        let owned: Vec<Value> = ours
            .iter()
            .map(|c| condition_object(c, stage.condition(c.type_), generation, now))
            .collect();
        let meta = json!({"name": stage.this.name, "namespace": stage.this.namespace});
        match list_type {
            ListType::MapByType => Write::Apply(json!({
                "apiVersion": format!("{}/{}", crate::delivery::GROUP, crate::delivery::VERSION),
                "kind": "Stage",
                "metadata": meta,
                "status": {"observedGeneration": generation, "conditions": owned},
            })),
            ListType::Atomic => {
                // Every condition as written, ours replaced in place or appended.
                let mut list: Vec<Value> = obj
                    .pointer("/status/conditions")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                for c in &owned {
                    let t = c["type"].clone();
                    match list.iter_mut().find(|x| x.get("type") == Some(&t)) {
                        Some(slot) => *slot = c.clone(),
                        None => list.push(c.clone()),
                    }
                }
                let rv = obj
                    .pointer("/metadata/resourceVersion")
                    .cloned()
                    .unwrap_or(Value::Null);
                Write::GuardedMerge(json!({
                    "metadata": {"resourceVersion": rv},
                    "status": {"observedGeneration": generation, "conditions": list},
                }))
            }
        }
    });
    Change {
        namespace: stage.this.namespace.clone(),
        name: stage.this.name.clone(),
        conditions: ours,
        write,
        why,
    }
}

/// The plan for every Stage of `world`'s snapshot, in the order listed.
pub fn plan(stages: &[Value], world: &World, list_type: ListType, now: &str) -> Vec<Change> {
    stages
        .iter()
        .map(|s| plan_stage(s, world, list_type, now))
        .collect()
}

#[cfg(test)]
mod tests;
