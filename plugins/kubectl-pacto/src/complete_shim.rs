//! `kubectl_complete-pacto`: kubectl (1.26+) runs this with the words after `kubectl pacto`
//! (the last one being completed) and reads candidates from stdout, one per line, then a
//! `:<directive>` line (Cobra's protocol, kubectl `pkg/cmd/plugin/plugin_completion.go`).

fn main() {
    use std::io::Write;
    let words: Vec<String> = std::env::args().skip(1).collect();
    // A reader that went away early is not an error.
    let _ = std::io::stdout().write_all(kubectl_pacto::complete::candidates(&words).as_bytes());
}
