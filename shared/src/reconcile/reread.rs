//! The read after a `409 Conflict`: the Stage is read again by its namespace and name and planned
//! again (client-go's `retry.RetryOnConflict`, `util/retry/util.go`), and only the object that
//! was listed may be written. A re-read that answers another object (another namespace or name,
//! or the same name with another `metadata.uid`: the listed Stage was deleted and another
//! created in its place) leaves the Stage unwritten. Pure.

use super::plan::Change;
use serde_json::Value;

/// Whether `fresh`, the answer to the re-read of `listed`'s namespace and name, is the Stage
/// that was listed: the same `metadata.namespace`, `metadata.name` and `metadata.uid`. Errors:
/// what differs, in the report's words (`the re-read answered test/other, not test/payments`).
/// A listed Stage without a uid cannot be told from another: refused too.
pub fn same_stage(listed: &Change, fresh: &Value) -> Result<(), String> {
    let field = |path: &str| fresh.pointer(path).and_then(Value::as_str).unwrap_or("");
    let (ns, name, uid) = (
        field("/metadata/namespace"),
        field("/metadata/name"),
        field("/metadata/uid"),
    );
    if (ns, name) != (listed.namespace.as_str(), listed.name.as_str()) {
        return Err(format!(
            "the re-read answered {ns}/{name}, not {}/{}",
            listed.namespace, listed.name
        ));
    }
    match listed.uid.as_deref() {
        None | Some("") => Err("the listed Stage carries no metadata.uid to tell it by".into()),
        Some(listed_uid) if listed_uid != uid => Err(format!(
            "the re-read answered uid {uid:?}, not the listed {listed_uid:?} (deleted and created again)"
        )),
        Some(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delivery::condition::Condition;
    use serde_json::json;

    fn listed(uid: Option<&str>) -> Change {
        let c = |t: &'static str| Condition {
            type_: t,
            status: "True",
            reason: "R".into(),
            message: String::new(),
        };
        Change {
            namespace: "test".into(),
            name: "payments".into(),
            uid: uid.map(str::to_string),
            conditions: [c("Ready"), c("Mediated")],
            write: None,
            why: Vec::new(),
            refused: None,
        }
    }

    fn object(ns: &str, name: &str, uid: &str) -> Value {
        json!({"metadata": {"namespace": ns, "name": name, "uid": uid}})
    }

    #[test]
    fn only_the_listed_object_may_be_written_again() {
        let l = listed(Some("u-1"));
        assert_eq!(same_stage(&l, &object("test", "payments", "u-1")), Ok(()));
        assert_eq!(
            same_stage(&l, &object("prod", "payments", "u-1")).unwrap_err(),
            "the re-read answered prod/payments, not test/payments"
        );
        assert_eq!(
            same_stage(&l, &object("test", "billing", "u-1")).unwrap_err(),
            "the re-read answered test/billing, not test/payments"
        );
        assert_eq!(
            same_stage(&l, &object("test", "payments", "u-2")).unwrap_err(),
            "the re-read answered uid \"u-2\", not the listed \"u-1\" (deleted and created again)"
        );
        assert_eq!(
            same_stage(
                &l,
                &json!({"metadata": {"namespace": "test", "name": "payments"}})
            )
            .unwrap_err(),
            "the re-read answered uid \"\", not the listed \"u-1\" (deleted and created again)"
        );
        assert!(same_stage(&listed(None), &object("test", "payments", "u-1")).is_err());
    }
}
