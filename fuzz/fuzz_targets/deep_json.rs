//! Answers nested deep: the first two bytes give a depth (up to 12,000, past Go's 10,000), the
//! next ones the brackets and the text at the bottom; the answer is decoded as a list page and
//! as a watch line, on a thread with the stack a command runs on, and never overflows it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pacto_gates::cluster::{decode_list_answer, decode_watch_line, ServedKind};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Mutex, OnceLock};

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let depth = usize::from(u16::from_le_bytes([data[0], data[1]])) % 12_001;
    let pattern = &data[2..];
    let open: Vec<u8> = (0..depth)
        .map(|i| if pattern[i % pattern.len()] & 1 == 0 { b'[' } else { b'{' })
        .collect();
    let mut body = Vec::with_capacity(depth * 8 + pattern.len());
    for (i, b) in open.iter().enumerate() {
        body.push(*b);
        if *b == b'{' {
            body.extend_from_slice(format!("\"k{}\":", i % 7).as_bytes());
        }
    }
    body.extend_from_slice(pattern);
    for b in open.iter().rev() {
        body.push(if *b == b'[' { b']' } else { b'}' });
    }
    let w = worker();
    w.0.send(body).unwrap();
    w.1.recv().unwrap();
});

/// One thread with the stack a command parses on (plugins/kubectl-pacto/src/main.rs gives 1 GiB;
/// 256 MiB is plenty for Go's 10,000 levels), started once: each input is decoded there.
fn worker() -> std::sync::MutexGuard<'static, (SyncSender<Vec<u8>>, Receiver<()>)> {
    static WORKER: OnceLock<Mutex<(SyncSender<Vec<u8>>, Receiver<()>)>> = OnceLock::new();
    WORKER.get_or_init(|| {
        let (send, inputs) = sync_channel::<Vec<u8>>(0);
        let (finished, done) = sync_channel::<()>(0);
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(move || {
                let kind = ServedKind {
                    group: "pacto.trianalab.io".into(),
                    version: "v1alpha1".into(),
                    kind: "Pacto".into(),
                    plural: "pactos".into(),
                    namespaced: true,
                };
                for body in inputs {
                    let _ = decode_list_answer(&body, &kind);
                    let _ = decode_watch_line(&body, &kind);
                    finished.send(()).unwrap();
                }
            })
            .unwrap();
        Mutex::new((send, done))
    })
    .lock()
    .unwrap()
}
