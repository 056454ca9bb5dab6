//! The memory estimate of a parsed answer (`cluster::parsed_size`) on arbitrary bytes: the scan
//! never fails on any input, stops at its depth bound, and for text that parses as JSON its
//! estimate is never below the estimate of the parsed value (`held_size`), which the counting
//! allocator test (`shared/tests/parsed_size_alloc.rs`) holds above what serde_json allocates.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pacto_gates::cluster::parsed_size::{held_size, scan};

fuzz_target!(|data: &[u8]| {
    let Some(scanned) = scan(data, 64) else {
        // Deeper than the bound: a scan with a higher bound sees the depth.
        assert!(scan(data, 100_000).is_some_and(|s| s.depth > 64));
        return;
    };
    assert!(scanned.depth <= 64);
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(data) {
        assert!(
            scanned.bytes >= held_size(&v),
            "scan {} < held {}",
            scanned.bytes,
            held_size(&v)
        );
    }
});
