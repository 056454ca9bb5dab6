//! The object reader on arbitrary bytes, as `-f` reads a file: document by document under a
//! small `--max-input-bytes`, and the in-memory reader when the bytes are UTF-8.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pacto_gates::k8s::yaml::{parse_chunk, Splitter};
use pacto_gates::object::{parse_documents, parse_objects, read_stream};

/// A small bound, so that the bound's error is reached too.
const LIMIT: u64 = 64 << 10;

fuzz_target!(|data: &[u8]| {
    let _ = read_stream(std::io::Cursor::new(data), "fuzz.yaml", LIMIT);
    let mut split = Splitter::new(std::io::Cursor::new(data), LIMIT);
    while let Ok(Some(chunk)) = split.next_chunk() {
        let _ = parse_chunk(&chunk);
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = parse_objects(text, "fuzz.yaml");
        let _ = parse_documents(text, "fuzz.yaml");
    }
});
