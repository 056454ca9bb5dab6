//! Pages of a list answer (the input cut at 0xFF bytes, which JSON text never holds) followed
//! as `Cluster::list` follows them, within small bounds (pages of 2, at most 50 objects): every
//! outcome is the objects or an error, and never more objects than the bound.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pacto_gates::cluster::{decode_list_pages, ServedKind};

fuzz_target!(|data: &[u8]| {
    let pages: Vec<&[u8]> = data.split(|b| *b == 0xFF).collect();
    let kind = ServedKind {
        group: "pacto.trianalab.io".into(),
        version: "v1alpha1".into(),
        kind: "Pacto".into(),
        plural: "pactos".into(),
        namespaced: true,
    };
    for chunk in [0, 2] {
        if let Ok(items) = decode_list_pages(&pages, &kind, chunk, 50) {
            assert!(items.len() <= 50);
        }
    }
});
