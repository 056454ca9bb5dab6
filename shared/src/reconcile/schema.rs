//! How a Stage's `status.conditions` must be written, from the schema the cluster serves: under
//! server-side apply, a list the CRD schema declares `x-kubernetes-list-type: map` keyed by
//! `type` merges condition by condition (each writer owns its own), while any other list is
//! atomic and replaced whole (kube-apiserver's structured merge, sigs.k8s.io/structured-merge-diff;
//! for CRDs an unmarked list is atomic).

use crate::k8s::listtype::{self as k8s, field_schema, kind_schema};
use serde_json::Value;

/// What applying a `status.conditions` list does to the entries of other writers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListType {
    /// `x-kubernetes-list-type: map` with `x-kubernetes-list-map-keys: [type]`: apply only ours.
    MapByType,
    /// Anything else (atomic, set, unmarked, unknown): write the whole list, guarded by
    /// `resourceVersion`, keeping the others' entries.
    Atomic,
}

/// The list type of `status.conditions` of the Stage kind in an OpenAPI v3 group-version
/// document (`/openapi/v3/apis/delivery.pacto.trianalab.io/v1alpha1`): the schema in
/// `components.schemas` whose `x-kubernetes-group-version-kind` names `group`/`version`/`kind`
/// ([`crate::k8s::listtype`]). A document without it reads as [`ListType::Atomic`] (the safe
/// write).
pub fn conditions_list_type(document: &Value, group: &str, version: &str, kind: &str) -> ListType {
    let conditions = kind_schema(document, group, version, kind)
        .and_then(|s| field_schema(s, &["status", "conditions"]));
    match k8s::ListType::of(conditions) {
        k8s::ListType::Map(keys) if keys == ["type"] => ListType::MapByType,
        _ => ListType::Atomic,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(conditions: Value) -> Value {
        json!({"components": {"schemas": {
            "io.trianalab.pacto.delivery.v1alpha1.Stage": {
                "type": "object",
                "x-kubernetes-group-version-kind": [{"group": "delivery.pacto.trianalab.io", "version": "v1alpha1", "kind": "Stage"}],
                "properties": {"status": {"properties": {"conditions": conditions}}}}}}})
    }

    #[test]
    fn only_a_map_keyed_by_type_merges() {
        let g = ("delivery.pacto.trianalab.io", "v1alpha1", "Stage");
        let lt = |d: Value| conditions_list_type(&d, g.0, g.1, g.2);
        assert_eq!(
            lt(doc(
                json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"]})
            )),
            ListType::MapByType
        );
        assert_eq!(lt(doc(json!({"type": "array"}))), ListType::Atomic);
        assert_eq!(
            lt(doc(
                json!({"type": "array", "x-kubernetes-list-type": "atomic"})
            )),
            ListType::Atomic
        );
        assert_eq!(
            lt(doc(
                json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type", "reason"]})
            )),
            ListType::Atomic
        );
        assert_eq!(lt(json!({})), ListType::Atomic);
    }
}
