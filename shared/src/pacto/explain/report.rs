//! One object's report, whatever its kind: the rows of the text, the same facts as data (for
//! `-o json|yaml`), and the notes to repeat on stderr. Gated objects (a Pacto, a
//! CoderTemplateTest, any other kind the gates judge) are built here ([`Report::gated`]);
//! Stages and Operations by `crate::delivery::explain`.

use super::{explain, Options, Row};
use crate::pacto::gate::Decision;
use jiff::Timestamp;
use serde_json::{json, Value};

/// One object's report.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The rows of the text block, raw (the renderer aligns, colours and escapes them).
    pub rows: Vec<Row>,
    /// The same as data: an `Explanation`, `StageExplanation` or `OperationExplanation`.
    pub data: Value,
    /// What the report could not know (a kind not installed, a list not readable), for stderr.
    pub notes: Vec<String>,
}

impl Report {
    /// The report as read through the kubeconfig context `context` (`explain --context a,b`):
    /// a first row `Context: NAME`, `context` in the data, and each note prefixed with
    /// `context "NAME": `.
    pub fn in_context(mut self, context: &str) -> Report {
        self.rows.insert(
            0,
            super::Row {
                indent: 0,
                key: "Context".into(),
                value: context.to_string(),
                tone: super::Tone::Plain,
            },
        );
        if let Some(m) = self.data.as_object_mut() {
            m.insert("context".into(), Value::from(context));
        }
        for n in self.notes.iter_mut() {
            *n = format!("context {context:?}: {n}");
        }
        self
    }

    /// The report of an object the gates judge: [`explain`]'s rows under `decision`, as data
    /// [`explanation`], with no notes (the gates' notes are the listing's).
    pub fn gated(obj: &Value, decision: &Decision, now: Timestamp, opts: Options) -> Report {
        let rows = explain(obj, decision, now, opts);
        Report {
            data: explanation(obj, &rows),
            rows,
            notes: Vec::new(),
        }
    }
}

/// A gated object's report as data: `{"apiVersion": "pacto.trianalab.io/v1alpha1", "kind":
/// "Explanation", "object": {apiVersion, kind, namespace, name}, "rows": [{indent, key,
/// value}]}`; a field the object lacks is `null`.
pub fn explanation(obj: &Value, rows: &[Row]) -> Value {
    let s = |p: &str| obj.pointer(p).cloned().unwrap_or(Value::Null);
    json!({
        "apiVersion": "pacto.trianalab.io/v1alpha1",
        "kind": "Explanation",
        "object": {
            "apiVersion": s("/apiVersion"),
            "kind": s("/kind"),
            "namespace": s("/metadata/namespace"),
            "name": s("/metadata/name"),
        },
        "rows": rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pacto::gate::{decide, ArgoGate, FluxGate};

    /// A NonCompliant Pacto at its generation under the recommended gates ("GitOps promotion
    /// gates": a NonCompliant Pacto makes the Application Degraded and the Kustomization
    /// unready, so both gates fail it): the text and the data carry the same rows, the data
    /// names the object, and a gated report has no notes of its own.
    #[test]
    fn a_gated_report_says_the_same_as_text_and_as_data() {
        let obj = json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
            "metadata": {"name": "orders", "namespace": "shop", "generation": 2},
            "spec": {"target": {"serviceName": "orders"}},
            "status": {"contractStatus": "NonCompliant", "observedGeneration": 2}});
        let (a, f) = (
            ArgoGate::recommended("test", false, 0),
            FluxGate::recommended("test", false, 0),
        );
        let r = Report::gated(
            &obj,
            &decide(&a, &f, &obj),
            "2026-11-29T12:00:00Z".parse().unwrap(),
            Options::default(),
        );
        let value = |key: &str| {
            r.rows
                .iter()
                .find(|row| row.key == key)
                .map(|row| row.value.as_str())
        };
        assert_eq!(value("Pacto"), Some("shop/orders"));
        assert_eq!(value("Verdict"), Some("NonCompliant"));
        assert!(
            value("Gate").is_some_and(|g| g.starts_with("fail")),
            "{:?}",
            r.rows
        );
        assert_eq!(r.data["kind"], json!("Explanation"));
        assert_eq!(
            r.data["object"],
            json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
                "namespace": "shop", "name": "orders"})
        );
        let data_rows = r.data["rows"].as_array().unwrap();
        assert_eq!(data_rows.len(), r.rows.len());
        assert_eq!(
            data_rows[0],
            json!({"indent": 0, "key": "Pacto", "value": "shop/orders"})
        );
        assert!(r.notes.is_empty());
        // A field the object lacks is null, not absent.
        let bare = explanation(&json!({"kind": "Pacto"}), &[]);
        assert_eq!(bare["object"]["namespace"], Value::Null);
    }
}
