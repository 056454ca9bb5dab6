//! The command line of `kubectl pacto` and the pure steps of its commands: the clap
//! definitions ([`cli`]), the values completion offers ([`candidates`]) and kubectl's
//! completion protocol ([`complete`]), the one step that turns flags and environment into
//! checked values ([`options`]; [`printer`] for kubectl's output flags, [`resource`] for the
//! resource types and `KIND/NAME` targets), and what `wait --for` waits for ([`wait`]). The
//! binary's commands (`cmd/`) and its I/O layer (`io/`) stand on it.

pub mod candidates;
pub mod cli;
pub mod complete;
pub mod options;
pub mod printer;
pub mod resource;
pub mod wait;
