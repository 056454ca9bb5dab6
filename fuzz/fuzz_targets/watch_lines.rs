//! A watch answer in frames of any size (the first bytes give the frame sizes): the lines cut
//! as a watch cuts them are the answer's lines, in order, whatever the framing, and each one
//! decodes as a watch event or an error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pacto_gates::cluster::{decode_watch_line, split_watch_lines, ServedKind};

fuzz_target!(|data: &[u8]| {
    let (sizes, body) = data.split_at(data.len().min(8));
    let mut frames = Vec::new();
    let mut rest = body;
    let mut i = 0;
    while !rest.is_empty() {
        let n = (usize::from(sizes.get(i % sizes.len().max(1)).copied().unwrap_or(7)) + 1)
            .min(rest.len());
        let (f, r) = rest.split_at(n);
        frames.push(f);
        rest = r;
        i += 1;
    }
    let (lines, pending) = split_watch_lines(&frames);
    let mut joined: Vec<u8> = lines.concat();
    joined.extend_from_slice(&pending);
    assert_eq!(joined, body, "the lines are the answer");
    assert!(lines.iter().all(|l| l.ends_with(b"\n") && l.iter().filter(|b| **b == b'\n').count() == 1));
    assert!(!pending.contains(&b'\n'));
    let kind = ServedKind {
        group: "pacto.trianalab.io".into(),
        version: "v1alpha1".into(),
        kind: "Pacto".into(),
        plural: "pactos".into(),
        namespaced: true,
    };
    for l in &lines {
        let _ = decode_watch_line(l, &kind);
    }
});
