//! The memory estimate of a parsed answer (`cluster::parsed_size`) is never below what
//! serde_json allocates to parse it, measured here with a counting allocator: the bound on
//! what a command holds counts no less than it holds. For a list of Kubernetes objects the
//! estimate stays within twice the truth, so the bound does not refuse what fits.

use pacto_gates::cluster::parsed_size;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

struct Counting;

/// Bytes allocated and not yet freed.
static LIVE: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::SeqCst);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::SeqCst);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
        LIVE.fetch_add(new as isize - layout.size() as isize, Ordering::SeqCst);
        unsafe { System.realloc(ptr, layout, new) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

static ONE: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The heap the parsed value of `text` holds, and the estimate of its text (the `Value`
/// itself, on the stack here, is part of the estimate: 72 bytes).
fn measured(text: &str) -> (i64, u64) {
    let estimate = parsed_size::scan(text.as_bytes(), 10_000).unwrap().bytes;
    let before = LIVE.load(Ordering::SeqCst);
    let v: serde_json::Value = serde_json::from_str(text).unwrap();
    let held = LIVE.load(Ordering::SeqCst) - before;
    // The text counts an escape as two bytes, the value as one.
    assert!(parsed_size::held_size(&v) <= estimate, "{text:.80}");
    drop(v);
    (held as i64 + 72, estimate)
}

fn object(n: usize) -> String {
    let fields: Vec<String> = (0..n).map(|i| format!("\"k{i}\":{i}")).collect();
    format!("{{{}}}", fields.join(","))
}

#[test]
fn the_estimate_is_never_below_the_allocation() {
    // One test at a time: the count is the whole process's.
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let mut texts: Vec<String> = vec![
        "0".into(),
        "\"text\"".into(),
        "[]".into(),
        "{}".into(),
        r#"[[],{},"",[0],{"":""}]"#.into(),
    ];
    for n in 1..=70 {
        texts.push(object(n));
        texts.push(format!("[{}]", vec!["0"; n].join(",")));
        texts.push(format!("[{}]", vec![object(n % 9 + 1); n].join(",")));
    }
    // The shapes a hostile answer pads with.
    for unit in ["0", "{}", "[]", "\"\"", r#"{"":0}"#, r#"{"a":0,"b":1}"#] {
        texts.push(format!("[{}]", vec![unit; 100_000].join(",")));
    }
    for text in &texts {
        let (held, estimate) = measured(text);
        assert!(
            estimate as i64 >= held,
            "{text:.80}: estimated {estimate}, allocated {held}"
        );
    }
}

/// A list of objects shaped as the API server sends them (a Deployment with managedFields,
/// conditions and a last-applied annotation): the estimate is at least the allocation and at
/// most twice it.
#[test]
fn a_list_of_kubernetes_objects_is_estimated_closely() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let item = |i: usize| {
        serde_json::json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": format!("web-{i}"), "namespace": "shop", "uid": "0b5c6a1e-7d1f-4c3a-9a61-1f2e3d4c5b6a",
                "resourceVersion": "123456", "generation": 4, "creationTimestamp": "2026-11-30T10:00:00Z",
                "labels": {"app": "web"},
                "annotations": {"deployment.kubernetes.io/revision": "4",
                    "kubectl.kubernetes.io/last-applied-configuration": "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\"}}"},
                "managedFields": [{"manager": "kubectl-client-side-apply", "operation": "Update", "apiVersion": "apps/v1",
                    "time": "2026-11-30T10:00:00Z", "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                        "f:spec": {"f:replicas": {}, "f:template": {"f:spec": {"f:containers": {"k:{\"name\":\"nginx\"}": {".": {}, "f:image": {}}}}}}}}]},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                "template": {"metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27", "resources": {}}]}}},
            "status": {"observedGeneration": 4, "replicas": 3, "readyReplicas": 3,
                "conditions": [{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
                    "message": "Deployment has minimum availability.", "lastTransitionTime": "2026-11-30T10:01:00Z"}]}
        })
    };
    let list = serde_json::json!({"apiVersion": "apps/v1", "kind": "DeploymentList",
        "metadata": {"resourceVersion": "1"}, "items": (0..2000).map(item).collect::<Vec<_>>()});
    let text = serde_json::to_string(&list).unwrap();
    let (held, estimate) = measured(&text);
    assert!(
        estimate as i64 >= held,
        "estimated {estimate}, allocated {held}"
    );
    assert!(
        estimate as i64 <= 2 * held,
        "estimated {estimate}, allocated {held}"
    );
    // What the text says of the memory: several times its length.
    assert!(held as usize > 3 * text.len(), "{held} for {}", text.len());
}
