//! A Stage's computed conditions: `Ready` ([`super::ready`]) and `Mediated` ([`super::mediated`])
//! from the objects they depend on, with every failure listed in the reason order of "Delivery
//! reference: setup and gates".

use super::condition::{from_failures, Computed};
use super::view::StageView;
use super::world::World;
use super::{mediated, ready};

/// Computes both conditions of `stage`.
pub fn compute(stage: &StageView, world: &World) -> Computed {
    let (mut failures, mut rules, mut undecided) = ready::check(stage, world);
    let (m_failures, m_rules, m_undecided) = mediated::check(stage, world);
    let ready_undecided = undecided.clone();
    failures.extend(m_failures);
    rules.extend(m_rules);
    undecided.extend(m_undecided.iter().cloned());
    undecided.dedup();
    let ready = from_failures(
        "Ready",
        "Promotable",
        "the Stage can promote: its candidates are verified and the promoter may write the apply OCIRepository's digest",
        &ready::ORDER,
        &failures,
        &ready_undecided,
    );
    let mediated = from_failures(
        "Mediated",
        "PointerDecides",
        "the pointer alone decides what runs: one labelled applier, scoped, with no overrides",
        &mediated::ORDER,
        &failures,
        &m_undecided,
    );
    // The document's order within each condition: Ready's reasons, then Mediated's.
    let rank = |f: &super::Failure| {
        let order: &[&str] = if f.condition == "Ready" {
            &ready::ORDER
        } else {
            &mediated::ORDER
        };
        let base = if f.condition == "Ready" { 0 } else { 100 };
        base + order.iter().position(|r| *r == f.reason).unwrap_or(99)
    };
    failures.sort_by_key(rank);
    Computed {
        ready,
        mediated,
        failures,
        rules,
        unreadable: undecided,
    }
}
