//! The script's result and its decoding into a health status, as argo-cd `util/lua/lua.go`
//! `ExecuteHealthLua` decodes the last value a health script returns.

use crate::argo::{HealthStatus, HEALTH_CODES};
use serde_json::Value;

/// The script's last return value, lifted out of the Lua state: what `ExecuteHealthLua` sees.
#[derive(Debug, Clone, PartialEq)]
pub enum LuaResult {
    Nil,
    /// Any non-table, with gopher's type name.
    Other(&'static str),
    /// A table encoded as gopher-json would encode it, or the encoding error text.
    Table(Result<Value, String>),
}

/// argo-cd `ExecuteHealthLua` on the script's last value:
/// nil → empty status; a non-table → `expect table output from Lua script, not <type>`; a table
/// → gopher-json encoding (its errors are returned), then Go's `json.Unmarshal` into
/// `HealthStatus{status, message}` (field names case-insensitive, the later of two spellings in
/// sorted key order wins; any type mismatch — an array, a number, a table — yields the empty
/// status without error); a status outside Argo's six codes → `Unknown` / `Lua returned an
/// invalid health status`.
pub fn decode_result(v: LuaResult) -> Result<HealthStatus, String> {
    let empty = HealthStatus::new("", "");
    match v {
        LuaResult::Nil => Ok(empty),
        LuaResult::Other(t) => Err(format!("expect table output from Lua script, not {t}")),
        LuaResult::Table(Err(e)) => Err(e),
        LuaResult::Table(Ok(json)) => {
            let Value::Object(map) = json else {
                return Ok(empty);
            };
            let (mut status, mut message) = (String::new(), String::new());
            for (k, v) in &map {
                let field = if k.eq_ignore_ascii_case("status") {
                    &mut status
                } else if k.eq_ignore_ascii_case("message") {
                    &mut message
                } else {
                    continue;
                };
                match v {
                    Value::String(s) => *field = s.clone(),
                    Value::Null => {}
                    _ => return Ok(empty),
                }
            }
            if HEALTH_CODES.contains(&status.as_str()) {
                Ok(HealthStatus { status, message })
            } else {
                Ok(HealthStatus::new(
                    "Unknown",
                    "Lua returned an invalid health status",
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! Every expected value here comes from argo-cd `util/lua/lua.go` (at 37ee0097) and gopher-lua
    //! v1.1.2, measured on Argo's own VM setup; each test names the upstream function it follows
    //! (docs/upstream.md, "Argo CD health").
    use super::*;
    use crate::argo::lua::testing::eval;

    /// argo-cd `ExecuteHealthLua`: the last return value; nil or {} → empty; a non-table → error;
    /// field names case-insensitive; a wrong-typed field → empty; an invalid code → Unknown
    /// (`isValidHealthStatusCode`).
    #[test]
    fn result_rules() {
        let empty = HealthStatus::new("", "");
        assert_eq!(
            eval("return {status = 'Degraded'}, {status = 'Healthy'}")
                .unwrap()
                .status,
            "Healthy"
        );
        assert_eq!(eval("return nil").unwrap(), empty);
        assert_eq!(eval("local x = 1").unwrap(), empty);
        assert_eq!(eval("return {}").unwrap(), empty);
        assert_eq!(eval("return {'Healthy'}").unwrap(), empty);
        assert_eq!(eval("return {status = 1}").unwrap(), empty);
        assert_eq!(eval("return {status = {}}").unwrap(), empty);
        assert_eq!(
            eval("return {status = 'Healthy', message = 5}").unwrap(),
            empty
        );
        assert_eq!(
            eval("return {status = 'Healthy', message = true}").unwrap(),
            empty
        );
        assert_eq!(
            eval("return {Status = 'Degraded', MESSAGE = 'x'}").unwrap(),
            HealthStatus::new("Degraded", "x")
        );
        assert_eq!(
            eval("return {Status = 'Degraded', status = 'Healthy'}")
                .unwrap()
                .status,
            "Healthy"
        );
        let invalid = HealthStatus::new("Unknown", "Lua returned an invalid health status");
        assert_eq!(eval("return {message = 'x'}").unwrap(), invalid);
        assert_eq!(eval("return {status = 'healthy'}").unwrap(), invalid);
        assert_eq!(
            eval("return 5").unwrap_err(),
            "expect table output from Lua script, not number"
        );
        assert_eq!(
            eval("return 'Healthy'").unwrap_err(),
            "expect table output from Lua script, not string"
        );
        assert_eq!(
            eval("return {1, nil, 3, status = 'x'}").unwrap_err(),
            "json: error calling MarshalJSON for type json.jsonValue: cannot encode sparse array"
        );
        assert_eq!(
            eval("local t = {status = 'Healthy'} t.self = t return t").unwrap_err(),
            "json: error calling MarshalJSON for type json.jsonValue: json: error calling MarshalJSON for type json.jsonValue: cannot encode recursively nested tables to JSON"
        );
    }
}
