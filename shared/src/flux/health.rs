//! Flux's verdict on one object: which reader judges it (fluxcd/pkg `runtime/cel/status_reader.go`
//! for `healthCheckExprs`, fluxcd/pkg `runtime/statusreaders/job.go` for Jobs, kstatus `Compute`
//! otherwise) in the order kustomize-controller and helm-controller install them.

use super::cel::{Limits, StatusEvaluator};
use super::kustomization::{HealthCheckExpr, Selector};
use super::{kstatus, KResult, KStatus};
use serde_json::Value;

/// Which reader decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FluxSource {
    /// The `healthCheckExprs` entry at this index.
    HealthCheckExprs { index: usize },
    /// Flux's Job reader.
    JobReader,
    /// kstatus `Compute`.
    Kstatus,
}

impl FluxSource {
    /// Short name used in reports: `healthCheckExprs`, `job-reader`, `kstatus`.
    pub fn name(&self) -> &'static str {
        match self {
            FluxSource::HealthCheckExprs { .. } => "healthCheckExprs",
            FluxSource::JobReader => "job-reader",
            FluxSource::Kstatus => "kstatus",
        }
    }
}

/// Flux's verdict on one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FluxVerdict {
    pub status: KStatus,
    /// kstatus's message (empty on the CEL path, which sets none).
    pub message: String,
    pub source: FluxSource,
    /// The reader's error: the status is then `Unknown`.
    pub error: Option<String>,
    /// On the `healthCheckExprs` path, what decided (the generation guard, which expression);
    /// Flux itself reports nothing of it.
    pub decided: Option<super::cel::Decided>,
}

/// Where the Job reader sits relative to the `healthCheckExprs` reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobOrder {
    /// kustomize-controller without impersonation: the Job reader comes first, so a `batch/Job`
    /// expression is never used.
    JobReaderFirst,
    /// kustomize-controller with `serviceAccountName`/`kubeConfig`, and helm-controller waiting
    /// for Jobs: expressions first, then the Job reader.
    ExpressionsFirst,
    /// helm-controller with `disableWaitForJobs: true`: no Job reader (helm-controller
    /// `internal/action/wait.go` `Wait`), so a Job without an expression is judged by kstatus.
    NoJobReader,
}

/// A Flux health configuration: the compiled `healthCheckExprs` and the reader order.
pub struct FluxHealth {
    selector: Selector,
    evaluators: Vec<(usize, StatusEvaluator)>,
    job_order: JobOrder,
    /// What kstatus takes as now (Pod scheduling window), Unix seconds.
    pub now_unix: i64,
}

impl FluxHealth {
    /// Compiles the entries as `cel.NewStatusReader` does. Errors, worded as the controller's
    /// `InvalidCELExpression` terminal error: a duplicate GroupKind, a missing `current`, an
    /// expression that does not parse.
    pub fn new(
        exprs: &[HealthCheckExpr],
        job_order: JobOrder,
        now_unix: i64,
    ) -> Result<FluxHealth, String> {
        FluxHealth::new_with_limits(exprs, job_order, now_unix, Limits::default())
    }

    /// [`FluxHealth::new`] with the expressions parsed and evaluated under `limits` (see
    /// [`Limits`]: the expression length and nesting, the iterations, memory and time of one
    /// evaluation).
    pub fn new_with_limits(
        exprs: &[HealthCheckExpr],
        job_order: JobOrder,
        now_unix: i64,
        limits: Limits,
    ) -> Result<FluxHealth, String> {
        let selector = Selector::new(exprs)?;
        let mut evaluators = Vec::new();
        // A skipped duplicate (before Flux v2.8) is never compiled.
        for e in exprs.iter().filter(|e| selector.uses(e.index)) {
            let ev =
                StatusEvaluator::new_with_limits(&e.current, &e.failed, &e.in_progress, limits)
                    .map_err(|err| {
                        format!(
                            "failed to create custom status evaluator for healthchecks[{}]: {err}",
                            e.index
                        )
                    })?;
            evaluators.push((e.index, ev));
        }
        Ok(FluxHealth {
            selector,
            evaluators,
            job_order,
            now_unix,
        })
    }

    /// Flux's verdict on an object.
    pub fn evaluate(&self, obj: &Value) -> FluxVerdict {
        let gvk = gvk_of(obj);
        let is_job = gvk.group == "batch" && gvk.kind == "Job";
        if is_job && self.job_order == JobOrder::JobReaderFirst {
            return from_reader(kstatus::job_status(obj), FluxSource::JobReader);
        }
        if let Some(index) = self.selector.select(&gvk.group, &gvk.kind) {
            if let Some((_, ev)) = self.evaluators.iter().find(|(i, _)| *i == index) {
                return from_expressions(ev.evaluate_why(obj), index);
            }
        }
        if is_job && self.job_order != JobOrder::NoJobReader {
            return from_reader(kstatus::job_status(obj), FluxSource::JobReader);
        }
        from_reader(kstatus::compute_at(obj, self.now_unix), FluxSource::Kstatus)
    }
}

impl FluxHealth {
    /// The `healthCheckExprs` status reader alone (fluxcd/pkg `runtime/cel/status_reader.go`
    /// `ReadStatusForObject`), without the Job reader and kstatus that the controller puts
    /// around it: the verdict of the entry covering the object's GroupKind (an evaluation error
    /// is status Unknown carrying the error). Errors: no entry covers the object (`the GroupKind
    /// Kind.group is not supported`, Go's `schema.GroupKind.String()`).
    pub fn read_status(&self, obj: &Value) -> Result<FluxVerdict, String> {
        let gvk = crate::k8s::gvk_of(obj);
        let evaluator = self
            .selector
            .select(&gvk.group, &gvk.kind)
            .and_then(|index| self.evaluators.iter().find(|(i, _)| *i == index));
        match evaluator {
            Some((index, ev)) => Ok(from_expressions(ev.evaluate_why(obj), *index)),
            None => Err(format!(
                "the GroupKind {} is not supported",
                super::kustomization::go_group_kind(&gvk.group, &gvk.kind)
            )),
        }
    }
}

/// `k8s::gvk_of`, with the two fields found by scanning a small object rather than hashing.
fn gvk_of(obj: &Value) -> crate::k8s::Gvk {
    let field = |name: &str| {
        obj.as_object()
            .and_then(|m| super::cel::small_map_get(m, name))
            .and_then(Value::as_str)
            .unwrap_or("")
    };
    crate::k8s::Gvk::from_api_version(field("apiVersion"), field("kind"))
}

/// `errResourceToResourceStatus`: a reader error is status Unknown carrying the error.
fn from_reader(r: Result<KResult, String>, source: FluxSource) -> FluxVerdict {
    match r {
        Ok(res) => FluxVerdict {
            status: res.status,
            message: res.message,
            source,
            error: None,
            decided: None,
        },
        Err(e) => FluxVerdict {
            status: KStatus::Unknown,
            message: String::new(),
            source,
            error: Some(e),
            decided: None,
        },
    }
}

fn from_expressions(
    r: Result<(KResult, super::cel::Decided), String>,
    index: usize,
) -> FluxVerdict {
    let source = FluxSource::HealthCheckExprs { index };
    match r {
        Ok((res, decided)) => FluxVerdict {
            decided: Some(decided),
            ..from_reader(Ok(res), source)
        },
        Err(e) => from_reader(Err(e), source),
    }
}
