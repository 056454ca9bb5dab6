//! The heap the block YAML reader (`k8s::yaml::block`) takes beyond the value it returns: none
//! that grows with the document's lines. It once listed every line (24 bytes each), so that a
//! document padded with blank lines took 24 times its size: 26 GB for the 1 GiB a document may
//! hold by default.

use pacto_gates::k8s::yaml::block;
use serde_json::json;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static BYTES: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
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
fn blank_lines_take_no_memory() {
    let blank = "\n".repeat(1 << 20);
    let pad = format!("{blank}  # c\n");
    let doc = format!("a: 1\n{pad}b:\n{pad}  c: |\n{blank}    x\n{pad}d: 2\n{pad}");
    let before = BYTES.load(Ordering::Relaxed);
    let value = block::parse(&doc);
    let bytes = BYTES.load(Ordering::Relaxed) - before;
    let want = format!("{blank}x\n");
    assert_eq!(value, Some(json!({"a": 1, "b": {"c": want}, "d": 2})));
    // The value: three keys and a mapping, and the block scalar's text with its leading empty
    // lines, grown by doubling (at most four times its length in all); a list of the lines
    // would take 24 bytes for each of the 5 million.
    assert!(
        bytes < 4 * want.len() + 4096,
        "{bytes} bytes allocated for a {} byte document",
        doc.len()
    );
}
