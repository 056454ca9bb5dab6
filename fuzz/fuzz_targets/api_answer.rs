//! API answers on arbitrary bytes: a list answer decoded as `Cluster::list` decodes a page,
//! and each line as a watch event.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pacto_gates::cluster::{decode_list_answer, decode_watch_line, ServedKind};
use std::sync::OnceLock;

fn kind() -> &'static ServedKind {
    static KIND: OnceLock<ServedKind> = OnceLock::new();
    KIND.get_or_init(|| ServedKind {
        group: "pacto.trianalab.io".into(),
        version: "v1alpha1".into(),
        kind: "Pacto".into(),
        plural: "pactos".into(),
        namespaced: true,
    })
}

fuzz_target!(|data: &[u8]| {
    let _ = decode_list_answer(data, kind());
    for line in data.split(|b| *b == b'\n') {
        let _ = decode_watch_line(line, kind());
    }
});
