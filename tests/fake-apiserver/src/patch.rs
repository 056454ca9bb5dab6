//! JSON merge patch (RFC 7386) and JSON patch (RFC 6902).

use serde_json::{Map, Value};

/// Applies an RFC 7386 merge patch in place: objects merge recursively,
/// `null` deletes a key, anything else replaces.
pub(crate) fn merge_patch(target: &mut Value, patch: &Value) {
    let Value::Object(patch) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    let Value::Object(map) = target else {
        unreachable!("target was just made an object")
    };
    for (key, value) in patch {
        if value.is_null() {
            map.remove(key);
        } else {
            merge_patch(map.entry(key.clone()).or_insert(Value::Null), value);
        }
    }
}

/// Splits an RFC 6901 JSON pointer into unescaped reference tokens.
fn pointer_tokens(pointer: &str) -> Result<Vec<String>, String> {
    if pointer.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = pointer.strip_prefix('/') else {
        return Err(format!("invalid JSON pointer \"{pointer}\""));
    };
    Ok(rest
        .split('/')
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect())
}

fn array_index(token: &str, len: usize, allow_end: bool) -> Result<usize, String> {
    if allow_end && token == "-" {
        return Ok(len);
    }
    let index: usize = token
        .parse()
        .map_err(|_| format!("invalid array index \"{token}\""))?;
    let limit = if allow_end {
        len
    } else {
        len.saturating_sub(1)
    };
    if index > limit || (!allow_end && len == 0) {
        return Err(format!("array index {index} out of bounds"));
    }
    Ok(index)
}

fn resolve_mut<'a>(doc: &'a mut Value, tokens: &[String]) -> Result<&'a mut Value, String> {
    let mut current = doc;
    for token in tokens {
        current = match current {
            Value::Object(map) => map
                .get_mut(token)
                .ok_or_else(|| format!("path segment \"{token}\" not found"))?,
            Value::Array(items) => {
                let index = array_index(token, items.len(), false)?;
                &mut items[index]
            }
            _ => return Err(format!("cannot descend into a scalar at \"{token}\"")),
        };
    }
    Ok(current)
}

fn resolve<'a>(doc: &'a Value, tokens: &[String]) -> Result<&'a Value, String> {
    let mut current = doc;
    for token in tokens {
        current = match current {
            Value::Object(map) => map
                .get(token)
                .ok_or_else(|| format!("path segment \"{token}\" not found"))?,
            Value::Array(items) => &items[array_index(token, items.len(), false)?],
            _ => return Err(format!("cannot descend into a scalar at \"{token}\"")),
        };
    }
    Ok(current)
}

fn add(doc: &mut Value, tokens: &[String], value: Value) -> Result<(), String> {
    let Some((last, parent)) = tokens.split_last() else {
        *doc = value;
        return Ok(());
    };
    match resolve_mut(doc, parent)? {
        Value::Object(map) => {
            map.insert(last.clone(), value);
            Ok(())
        }
        Value::Array(items) => {
            let index = array_index(last, items.len(), true)?;
            items.insert(index, value);
            Ok(())
        }
        _ => Err("cannot add a member to a scalar".to_string()),
    }
}

fn remove(doc: &mut Value, tokens: &[String]) -> Result<Value, String> {
    let Some((last, parent)) = tokens.split_last() else {
        return Err("cannot remove the whole document".to_string());
    };
    match resolve_mut(doc, parent)? {
        Value::Object(map) => map
            .remove(last)
            .ok_or_else(|| format!("path segment \"{last}\" not found")),
        Value::Array(items) => {
            let index = array_index(last, items.len(), false)?;
            Ok(items.remove(index))
        }
        _ => Err("cannot remove a member of a scalar".to_string()),
    }
}

/// Applies an RFC 6902 JSON patch (`add`, `remove`, `replace`, `move`,
/// `copy`, `test`) to `doc`; fails without partial results.
pub(crate) fn json_patch(mut doc: Value, ops: &Value) -> Result<Value, String> {
    let ops = ops
        .as_array()
        .ok_or("a JSON patch must be an array of operations")?;
    for op in ops {
        let name = op
            .get("op")
            .and_then(Value::as_str)
            .ok_or("a JSON patch operation needs an \"op\"")?;
        let path = pointer_tokens(
            op.get("path")
                .and_then(Value::as_str)
                .ok_or("a JSON patch operation needs a \"path\"")?,
        )?;
        let value = || {
            op.get("value")
                .cloned()
                .ok_or_else(|| format!("the \"{name}\" operation needs a \"value\""))
        };
        let from = || {
            op.get("from")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("the \"{name}\" operation needs a \"from\""))
                .and_then(pointer_tokens)
        };
        match name {
            "add" => add(&mut doc, &path, value()?)?,
            "remove" => {
                remove(&mut doc, &path)?;
            }
            "replace" => {
                let new = value()?;
                *resolve_mut(&mut doc, &path)? = new;
            }
            "move" => {
                let moved = remove(&mut doc, &from()?)?;
                add(&mut doc, &path, moved)?;
            }
            "copy" => {
                let copied = resolve(&doc, &from()?)?.clone();
                add(&mut doc, &path, copied)?;
            }
            "test" => {
                if resolve(&doc, &path)? != &value()? {
                    return Err(format!(
                        "test operation failed at \"{}\"",
                        op["path"].as_str().unwrap_or("")
                    ));
                }
            }
            other => return Err(format!("unknown JSON patch operation \"{other}\"")),
        }
    }
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merge_patch_follows_rfc7386() {
        let mut doc = json!({"a": "b", "c": {"d": "e", "f": "g"}, "l": [1, 2]});
        merge_patch(
            &mut doc,
            &json!({"a": "z", "c": {"f": null, "n": {"x": null, "y": 1}}, "l": [3]}),
        );
        assert_eq!(
            doc,
            json!({"a": "z", "c": {"d": "e", "n": {"y": 1}}, "l": [3]})
        );
        let mut scalar = json!(1);
        merge_patch(&mut scalar, &json!({"k": "v"}));
        assert_eq!(scalar, json!({"k": "v"}));
    }

    #[test]
    fn json_patch_operations() {
        let doc = json!({"spec": {"list": [1, 2], "x": 1}, "m": {"a/b": 1}});
        let ops = json!([
            {"op": "test", "path": "/spec/x", "value": 1},
            {"op": "add", "path": "/spec/list/-", "value": 3},
            {"op": "add", "path": "/spec/list/0", "value": 0},
            {"op": "replace", "path": "/spec/x", "value": 2},
            {"op": "remove", "path": "/m/a~1b"},
            {"op": "copy", "from": "/spec/x", "path": "/spec/y"},
            {"op": "move", "from": "/spec/y", "path": "/z"},
        ]);
        assert_eq!(
            json_patch(doc.clone(), &ops).unwrap(),
            json!({"spec": {"list": [0, 1, 2, 3], "x": 2}, "m": {}, "z": 2})
        );
        let failing = json!([{"op": "test", "path": "/spec/x", "value": 9}]);
        assert!(json_patch(doc.clone(), &failing).is_err());
        let missing = json!([{"op": "replace", "path": "/nope", "value": 9}]);
        assert!(json_patch(doc, &missing).is_err());
    }
}
