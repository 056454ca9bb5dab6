//! The bounds on an evaluation's work and memory.
//!
//! cel-go bounds nothing in Flux's environment but the Go context: `InterruptCheckFrequency(100)`
//! makes comprehensions check for cancellation every 100 iterations, and Flux evaluates with the
//! health check's context. cel-rust has no such hook, so every comprehension's range is routed
//! through `@flux_charge` (see `rewrite.rs`), which charges the range's size to a per-evaluation
//! iteration budget, and checks the deadline, before the loop starts. Loops are one source of
//! unbounded work; the other is values that grow (`s + s`, `replace`, lists of lists): the
//! operations that make them charge the estimated bytes they produce (`@flux_add`,
//! `@flux_replace`, `@flux_cost`), before building the result where its size is known in advance,
//! and check the deadline too. Once a budget is spent every charge fails, so an evaluation stops
//! soon after. The errors name the bound and say that Flux has none.
//!
//! The state is thread-local: an evaluation runs on the calling thread from start to end.

use super::env::verbatim;
use cel::ExecutionError;
use std::cell::Cell;
use std::time::{Duration, Instant};

/// The bounds on one expression: its size and nesting (checked when it is parsed) and the work
/// and memory of one evaluation. Flux's cel-go refuses expressions longer than 100,000 code
/// points and nested deeper than 250 (parser defaults, cel-go `parser/parser.go`), and bounds an
/// evaluation by nothing but the health check's context; the evaluation bounds here are
/// kubectl-pacto's own, and their errors say so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Comprehension iterations (elements of the ranges of `all`, `exists`, `exists_one`, `map`,
    /// `filter`, counted when each comprehension starts).
    pub max_iterations: u64,
    /// Wall-clock time from the start of the evaluation, checked when a comprehension starts
    /// and whenever memory is charged. Default 1 s, as Argo CD bounds a Lua health script.
    pub deadline: Option<Duration>,
    /// Estimated bytes the operations of one evaluation may produce: strings and bytes by their
    /// length, lists 8 bytes an element, maps 16 bytes an entry, scalars 8 bytes, counted for
    /// `+`, `replace` (before the result is built), list and map literals, and the results of
    /// functions. Default 64 MiB, as the Lua sandbox's memory cap.
    pub max_alloc_bytes: u64,
    /// Code points an expression may have; cel-go's parser default, with its error text.
    pub max_expression_length: usize,
    /// How deep an expression may nest (brackets, selection and call chains, operators), checked
    /// before and after parsing; cel-go's parser stops at a recursion depth of 250.
    pub max_depth: usize,
}

/// The default iteration budget: far above what a health expression over one object needs
/// (a few conditions), small enough that a runaway expression stops within seconds (about 2 s
/// for seven nested `all()` over ten elements in a release build, about 15 s in a debug build).
pub const DEFAULT_MAX_ITERATIONS: u64 = 1_000_000;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_iterations: DEFAULT_MAX_ITERATIONS,
            deadline: Some(Duration::from_secs(1)),
            max_alloc_bytes: 64 << 20,
            max_expression_length: 100_000,
            max_depth: 250,
        }
    }
}

#[derive(Clone, Copy)]
struct State {
    max: u64,
    used: u64,
    max_alloc: u64,
    alloc: u64,
    deadline: Option<Instant>,
    deadline_len: Option<Duration>,
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
        max_alloc: limits.max_alloc_bytes,
        alloc: 0,
        deadline_len: limits.deadline,
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

/// The error of a bound of kubectl-pacto's: which one, and that Flux evaluates without it.
pub(super) fn bound_error(bound: &str) -> ExecutionError {
    verbatim(format!(
        "operation interrupted: kubectl-pacto's bound on {bound} was hit; Flux evaluates CEL \
         without this bound, so its controller may hang or run out of memory on this expression"
    ))
}

fn check_deadline(state: &State) -> Result<(), ExecutionError> {
    if let (Some(deadline), Some(len)) = (state.deadline, state.deadline_len) {
        if Instant::now() >= deadline {
            return Err(bound_error(&format!(
                "evaluation time ({len:?}, Limits::deadline)"
            )));
        }
    }
    Ok(())
}

/// The error text of the iteration bound.
pub(super) fn iterations_text(max: u64) -> String {
    format!("comprehension iterations ({max}, Limits::max_iterations)")
}

/// The error text of the memory bound.
pub(super) fn alloc_text(max: u64) -> String {
    format!("memory one evaluation produces ({max} bytes, Limits::max_alloc_bytes)")
}

/// Charges `n` iterations; fails once the budget is spent or the deadline passed.
pub(super) fn charge(n: u64) -> Result<(), ExecutionError> {
    STATE.with(|s| {
        let Some(mut state) = s.get() else {
            return Ok(());
        };
        check_deadline(&state)?;
        state.used = state.used.saturating_add(n);
        s.set(Some(state));
        if state.used > state.max {
            return Err(bound_error(&iterations_text(state.max)));
        }
        Ok(())
    })
}

/// Charges `bytes` of produced values; fails once the memory bound is spent or the deadline
/// passed. Called before a large result is built where its size is known in advance.
pub(super) fn charge_alloc(bytes: u64) -> Result<(), ExecutionError> {
    STATE.with(|s| {
        let Some(mut state) = s.get() else {
            return Ok(());
        };
        check_deadline(&state)?;
        state.alloc = state.alloc.saturating_add(bytes);
        s.set(Some(state));
        if state.alloc > state.max_alloc {
            return Err(bound_error(&alloc_text(state.max_alloc)));
        }
        Ok(())
    })
}
