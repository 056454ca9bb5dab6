//! The command line of `kubectl pacto`, shared by the plugin binary and its completion shim:
//! the clap definitions ([`cli`]), the completion candidates ([`complete`]) and the one step
//! that turns flags and environment into checked values ([`options`], [`printer`] for kubectl's
//! output flags, and [`resource`] for the resource types and `KIND/NAME` targets).

pub mod cli;
pub mod complete;
pub mod options;
pub mod printer;
pub mod resource;
pub mod wait;
