//! Kubeconfig reading on arbitrary text, as `cluster` reads one before connecting: kube-rs's
//! parse, the context checks, the server and proxy URLs (no file read, no network, no plugin).
#![no_main]

use libfuzzer_sys::fuzz_target;
use pacto_gates::cluster::check_kubeconfig_text;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = check_kubeconfig_text(text, "fuzz-kubeconfig", None);
    let _ = check_kubeconfig_text(text, "fuzz-kubeconfig", Some("dev"));
});
