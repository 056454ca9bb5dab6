//! The Lua front end on arbitrary source: gopher-lua's parser and the rewrite, then the
//! compilation to LuaJIT bytecode of what parses.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pacto_gates::argo::gopher::rewrite;
use pacto_gates::argo::lua::Script;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    if rewrite(src, "__concat", "__len").is_ok() {
        let _ = Script::compile(src);
    }
});
