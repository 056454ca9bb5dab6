//! argocd-cm parsing on arbitrary data: the input is `key\0value\0key\0value...`, giving the
//! ConfigMap's `data` (keys can be the legacy blob or the split keys); the same data goes
//! through `parse_configmap` as a ConfigMap object.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pacto_gates::argo::settings::{parse_configmap, parse_data};
use std::collections::BTreeMap;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut parts = text.split('\0');
    let mut map = BTreeMap::new();
    while let (Some(k), Some(v)) = (parts.next(), parts.next()) {
        map.insert(k.to_string(), v.to_string());
    }
    let _ = parse_data(&map);
    let cm = serde_json::json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "argocd-cm", "namespace": "argocd"},
        "data": map,
    });
    let _ = parse_configmap(&cm);
});
