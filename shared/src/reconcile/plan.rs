//! The plan of a one-shot reconcile: for each Stage, the `Ready` and `Mediated` conditions that
//! [`crate::delivery::compute`] gives, compared with what its status holds, and the write that
//! brings it there — or none when it already says it. Pure: the objects and the time come in.
//!
//! Rules (metav1.Condition conventions, apimachinery `meta.SetStatusCondition`):
//! `lastTransitionTime` changes only when a condition's status changes; `observedGeneration`
//! (of each condition and of the status) is the Stage's `metadata.generation` when that is an
//! int64 (else it is neither written nor compared); conditions of other types are never
//! touched; a type of ours is written once (further entries of it in an atomic list are
//! dropped, as `meta.RemoveStatusCondition` drops every entry of a type). A merge patch is
//! written only with the `metadata.resourceVersion` it is guarded by.

use super::schema::ListType;
use crate::cluster::StatusPatch;
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

    /// The request that makes this write, under the field manager [`super::FIELD_MANAGER`]:
    /// server-side apply or merge patch of the status subresource
    /// ([`crate::cluster::Cluster::patch_status`]).
    pub fn status_patch(&self) -> StatusPatch<'_> {
        match self {
            Write::Apply(body) => StatusPatch::Apply {
                body,
                manager: super::FIELD_MANAGER,
            },
            Write::GuardedMerge(body) => StatusPatch::Merge {
                body,
                manager: super::FIELD_MANAGER,
            },
        }
    }
}

/// What the reconcile does with one Stage.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub namespace: String,
    pub name: String,
    /// `metadata.uid` as listed (None when the object carries none): a re-read must be this
    /// object ([`super::reread`]).
    pub uid: Option<String>,
    /// The computed conditions, Ready then Mediated.
    pub conditions: [Condition; 2],
    /// None: the status already says it; no request.
    pub write: Option<Write>,
    /// Why it is written: which condition or field differs.
    pub why: Vec<String>,
    /// Why the write it needs cannot be made safely (then `write` is None and the Stage is left
    /// unwritten): a merge patch with no `metadata.resourceVersion` to guard it.
    pub refused: Option<String>,
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
            w.last_transition_time.to_string()
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

/// How many entries of `type_` the status holds.
fn entries_of(stage: &StageView, type_: &str) -> usize {
    stage.conditions.iter().filter(|c| c.type_ == type_).count()
}

/// The `metadata.resourceVersion` a merge patch is guarded by: a non-empty string.
fn resource_version(obj: &Value) -> Option<&str> {
    obj.pointer("/metadata/resourceVersion")
        .and_then(Value::as_str)
        .filter(|rv| !rv.is_empty())
}

fn generation_words(g: Option<i64>) -> String {
    g.map(|g| g.to_string()).unwrap_or_else(|| "<none>".into())
}

/// The change for one Stage object. `now` is RFC 3339 (`2026-11-29T12:00:00Z`).
pub fn plan_stage(obj: &Value, world: &World, list_type: ListType, now: &str) -> Change {
    let stage = StageView::new(obj);
    let computed = compute(&stage, world);
    // Only an int64 generation is copied (the view reads anything else as none).
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
                    generation_words(w.observed_generation)
                ),
                Some(_) => format!("{}'s message changes", c.type_),
            });
        }
        let n = entries_of(&stage, c.type_);
        if n > 1 {
            why.push(format!("{} is written {n} times", c.type_));
        }
    }
    if generation.is_some() && stage.observed_generation != generation {
        why.push(format!(
            "status.observedGeneration {} becomes {}",
            generation_words(stage.observed_generation),
            generation_words(generation)
        ));
    }
    let owned: Vec<Value> = ours
        .iter()
        .map(|c| condition_object(c, stage.condition(c.type_), generation, now))
        .collect();
    let status = |conditions: Vec<Value>| {
        let mut s = serde_json::Map::new();
        if let Some(g) = generation {
            s.insert("observedGeneration".into(), json!(g));
        }
        s.insert("conditions".into(), Value::Array(conditions));
        Value::Object(s)
    };
    let mut refused = None;
    let write = if why.is_empty() {
        None
    } else {
        match list_type {
            ListType::MapByType => Some(Write::Apply(json!({
                "apiVersion": format!("{}/{}", crate::delivery::GROUP, crate::delivery::VERSION),
                "kind": "Stage",
                "metadata": {"name": stage.this.name, "namespace": stage.this.namespace},
                "status": status(owned),
            }))),
            ListType::Atomic => match resource_version(obj) {
                // Without a resourceVersion the patch would not be guarded: it could drop a
                // condition another writer set since the list.
                None => {
                    refused = Some(
                        "the Stage carries no metadata.resourceVersion to guard the merge patch of its whole conditions list"
                            .to_string(),
                    );
                    None
                }
                Some(rv) => Some(Write::GuardedMerge(json!({
                    "metadata": {"resourceVersion": rv},
                    "status": status(atomic_list(obj, &owned)),
                }))),
            },
        }
    };
    Change {
        namespace: stage.this.namespace.to_string(),
        name: stage.this.name.to_string(),
        uid: obj
            .pointer("/metadata/uid")
            .and_then(Value::as_str)
            .map(str::to_string),
        conditions: ours,
        write,
        why,
        refused,
    }
}

/// The whole conditions list of an atomic write: every condition as written, each of ours in
/// the place of its type's first entry (appended when there is none), further entries of our
/// types dropped.
fn atomic_list(obj: &Value, owned: &[Value]) -> Vec<Value> {
    let written = obj
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut list: Vec<Value> = Vec::with_capacity(written.len() + owned.len());
    let mut placed = vec![false; owned.len()];
    for entry in written {
        match owned
            .iter()
            .position(|o| entry.get("type") == Some(&o["type"]))
        {
            Some(i) if !placed[i] => {
                list.push(owned[i].clone());
                placed[i] = true;
            }
            Some(_) => {}
            None => list.push(entry.clone()),
        }
    }
    for (o, done) in owned.iter().zip(placed) {
        if !done {
            list.push(o.clone());
        }
    }
    list
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
