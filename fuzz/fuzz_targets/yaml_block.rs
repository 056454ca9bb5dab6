//! The block YAML reader (`k8s::yaml::block`) against the YAML parser it stands in for: on any
//! text the reader accepts, the parser must give the same value (compared as JSON text, so
//! that key order and the sign of a zero count). Text the reader declines is the parser's
//! alone and is not compared.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pacto_gates::k8s::yaml::{block, parse_chunk_by_parser, Chunk};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Some(fast) = block::parse(text) else {
        return;
    };
    let fast = serde_json::to_string(&fast).expect("a Value prints");
    let chunk = Chunk {
        offset: 0,
        text: text.to_string(),
        content: true,
    };
    match parse_chunk_by_parser(&chunk) {
        Ok(Some(v)) => {
            let slow = serde_json::to_string(&v).expect("a Value prints");
            assert_eq!(fast, slow, "block reader and parser differ on {text:?}");
        }
        other => panic!("block reader read {text:?} as {fast}; the parser: {other:?}"),
    }
});
