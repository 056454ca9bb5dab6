//! CEL on arbitrary text: Flux's parse, then evaluation of what parses against the example's
//! compliant Pacto and, when the input holds one after a NUL, a JSON object of its own (every
//! result kind), under the default budgets and a short deadline.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pacto_gates::flux::cel::{Expression, Limits};
use std::sync::OnceLock;
use std::time::Duration;

/// The compliant Pacto of the examples (the object Flux's health expressions read).
fn pacto() -> &'static serde_json::Value {
    static OBJ: OnceLock<serde_json::Value> = OnceLock::new();
    OBJ.get_or_init(|| {
        let text =
            include_str!("../../examples/gates/pacto.trianalab.io/Pacto/testdata/compliant.yaml");
        let mut objects = pacto_gates::object::parse_objects(text, "compliant.yaml")
            .expect("the example Pacto parses");
        objects.remove(0).value
    })
}

fuzz_target!(|data: &[u8]| {
    // `expression\0object`: the text after the first NUL, when it is JSON, is a second object
    // to evaluate against (odd numbers, nesting, types the Pacto does not have).
    let (src, rest) = match data.iter().position(|b| *b == 0) {
        Some(i) => (&data[..i], Some(&data[i + 1..])),
        None => (data, None),
    };
    let Ok(src) = std::str::from_utf8(src) else {
        return;
    };
    let limits = Limits {
        deadline: Some(Duration::from_millis(200)),
        ..Limits::default()
    };
    let Ok(expr) = Expression::parse_with_limits(src, limits) else {
        return;
    };
    let derived = rest.and_then(|r| serde_json::from_slice::<serde_json::Value>(r).ok());
    for obj in std::iter::once(pacto()).chain(derived.as_ref()) {
        let _ = expr.eval_bool(obj);
        let _ = expr.evaluate(obj);
        let _ = expr.eval_string(obj);
        let _ = expr.eval_string_slice(obj);
    }
});
