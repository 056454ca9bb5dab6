//! The bound on an evaluation's work.
//!
//! cel-go bounds nothing in Flux's environment but the Go context: `InterruptCheckFrequency(100)`
//! makes comprehensions check for cancellation every 100 iterations, and Flux evaluates with the
//! health check's context. cel-rust has no such hook, so every comprehension's range is routed
//! through `@flux_charge` (see `rewrite.rs`), which charges the range's size to a per-evaluation
//! iteration budget, and checks an optional deadline, before the loop starts. All unbounded work in
//! CEL comes from comprehensions (there are no loops, no recursion), so this bounds the work of an
//! evaluation by the budget times the size of the expression. Once the budget is spent every
//! comprehension fails at its start, so an evaluation stops soon after.
//!
//! The state is thread-local: an evaluation runs on the calling thread from start to end.

use super::env::verbatim;
use cel::ExecutionError;
use std::cell::Cell;
use std::time::{Duration, Instant};

/// How much work one evaluation may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Comprehension iterations (elements of the ranges of `all`, `exists`, `exists_one`, `map`,
    /// `filter`, counted when each comprehension starts). Exceeding it fails the evaluation with
    /// `operation interrupted: iteration budget of N exceeded`.
    pub max_iterations: u64,
    /// Wall-clock time from the start of the evaluation, checked when a comprehension starts, as
    /// cel-go checks its context. Exceeding it fails the evaluation with `operation interrupted`,
    /// cel-go's text for a cancelled context.
    pub deadline: Option<Duration>,
}

/// The default iteration budget: far above what a health expression over one object needs
/// (a few conditions), small enough that a runaway expression stops within seconds (about 2 s
/// for seven nested `all()` over ten elements in a release build, about 15 s in a debug build).
pub const DEFAULT_MAX_ITERATIONS: u64 = 1_000_000;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_iterations: DEFAULT_MAX_ITERATIONS,
            deadline: None,
        }
    }
}

#[derive(Clone, Copy)]
struct State {
    max: u64,
    used: u64,
    deadline: Option<Instant>,
}

thread_local! {
    static STATE: Cell<Option<State>> = const { Cell::new(None) };
}

/// Installs `limits` for the evaluations run until the guard drops; restores the previous state
/// then (evaluations may nest).
pub(super) struct Guard(Option<State>);

/// Starts an evaluation that began at `started` (the deadline counts from there; `None` is now).
pub(super) fn start(limits: &Limits, started: Option<Instant>) -> Guard {
    let state = State {
        max: limits.max_iterations,
        used: 0,
        deadline: limits
            .deadline
            .map(|d| started.unwrap_or_else(Instant::now) + d),
    };
    Guard(STATE.with(|s| s.replace(Some(state))))
}

impl Drop for Guard {
    fn drop(&mut self) {
        STATE.with(|s| s.set(self.0));
    }
}

/// Charges `n` iterations; fails once the budget is spent or the deadline passed.
pub(super) fn charge(n: u64) -> Result<(), ExecutionError> {
    STATE.with(|s| {
        let Some(mut state) = s.get() else {
            return Ok(());
        };
        if let Some(deadline) = state.deadline {
            if Instant::now() >= deadline {
                return Err(verbatim("operation interrupted"));
            }
        }
        state.used = state.used.saturating_add(n);
        s.set(Some(state));
        if state.used > state.max {
            return Err(verbatim(format!(
                "operation interrupted: iteration budget of {} exceeded",
                state.max
            )));
        }
        Ok(())
    })
}
