//! The heap work of one Flux health verdict on a Pacto object with the example Kustomization's
//! expressions (examples/flux/kustomization-gated.yaml): on the fast path the expressions read
//! the object in place, so a verdict allocates only the object's GroupVersionKind strings.

use pacto_gates::flux::health::{FluxHealth, JobOrder};
use pacto_gates::flux::{kustomization, KStatus};
use serde_json::json;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
static BYTES: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn a_pacto_verdict_allocates_only_its_gvk() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/flux/kustomization-gated.yaml"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let objs = pacto_gates::object::parse_objects(&text, path).unwrap();
    let k = kustomization::parse(&objs[0].value).unwrap();
    let engine = FluxHealth::new(&k.exprs, JobOrder::JobReaderFirst, 0).unwrap();
    let pacto = |verdict: &str| {
        json!({
            "apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
            "metadata": {"name": "svc", "namespace": "shop", "generation": 2},
            "spec": {"contractRef": {"oci": "ghcr.io/acme/c:1.0.0"}},
            "status": {
                "contractStatus": verdict, "observedGeneration": 2,
                "findings": [{"code": "TAG_NOT_DIGEST", "severity": "warning"}],
                "conditions": [{"type": "ContractValid", "status": "True", "reason": "Valid"}]
            }
        })
    };
    for (verdict, want) in [
        ("Compliant", KStatus::Current),
        ("NonCompliant", KStatus::Failed),
        ("Unknown", KStatus::InProgress),
    ] {
        let obj = pacto(verdict);
        let (a0, b0) = (
            ALLOCATIONS.load(Ordering::Relaxed),
            BYTES.load(Ordering::Relaxed),
        );
        let status = engine.evaluate(&obj).status;
        let (a1, b1) = (
            ALLOCATIONS.load(Ordering::Relaxed),
            BYTES.load(Ordering::Relaxed),
        );
        eprintln!("{verdict}: {} allocations, {} bytes", a1 - a0, b1 - b0);
        assert_eq!(status, want);
        // group, version and kind
        assert!(a1 - a0 <= 3, "{verdict}: {} allocations", a1 - a0);
    }
}
