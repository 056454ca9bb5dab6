//! `kubectl_complete-pacto`: kubectl (1.26+) runs this with the words after `kubectl pacto`
//! (the last one being completed) and reads candidates from stdout, one per line, then a
//! `:<directive>` line (Cobra's protocol, kubectl `pkg/cmd/plugin/plugin_completion.go`).

#[path = "cli.rs"]
mod cli;
#[path = "complete.rs"]
mod complete;

fn main() {
    let words: Vec<String> = std::env::args().skip(1).collect();
    complete::print(&words);
}
