//! A benchmark of `reconcile --once` against the real kube-apiserver, not a test: ignored, run it
//! with
//!
//! ```sh
//! cargo build --release -p kubectl-pacto
//! KUBECTL_PACTO_BENCH_BIN=target/release/kubectl-pacto \
//!   cargo test -p kubectl-pacto --test kubectl_pacto real::bench -- --ignored --nocapture
//! ```
//!
//! For each size (`KUBECTL_PACTO_BENCH_STAGES`, default `1000,10000`) it creates that many
//! copies of the delivery test base (a Stage, its two OCIRepositories, its Kustomization) in a
//! namespace of its own on a cluster of its own, then times two whole runs of the binary under
//! `/usr/bin/time -v`: the first writes every Stage's status, the second writes nothing. It
//! prints wall, user and system time and peak memory of each, the CPU time kube-apiserver and
//! etcd spent meanwhile, and the load average before the run. The binary is `KUBECTL_PACTO_BENCH_BIN` (a release build is what ships), else the
//! test's own. The runs must do what they claim (every Stage updated, then every Stage
//! unchanged, exit 0); the times are printed, never asserted. With `KUBECTL_PACTO_BENCH_AUDIT=1`
//! it also prints, from the API server's audit log, how many requests of each kind a run made
//! and how long the server took over them. `KUBECTL_PACTO_BENCH_AUDIT_LEVEL` sets the API
//! server's audit level: `RequestResponse` (the default, as the tests run it), `Metadata` (as
//! many clusters log) or `None` (no audit log).

use super::*;

/// `n` copies of `shared/src/delivery/testdata/base-flux.yaml` in `ns`, each name suffixed
/// `-NNNNN`.
fn objects(ns: &str, n: usize) -> Vec<Value> {
    let text = std::fs::read_to_string(repo().join("shared/src/delivery/testdata/base-flux.yaml"))
        .unwrap();
    let base: Vec<Value> = serde_saphyr::from_multiple::<Value>(&text)
        .unwrap()
        .into_iter()
        .filter(Value::is_object)
        .collect();
    let mut out = Vec::with_capacity(n * base.len());
    for i in 0..n {
        for o in &base {
            let mut o = o.clone();
            let name = o["metadata"]["name"].as_str().unwrap().to_string();
            o["metadata"]["name"] = Value::from(format!("{name}-{i:05}"));
            o["metadata"]["namespace"] = Value::from(ns);
            if o["kind"] == "Stage" {
                o["spec"]["applyRef"]["name"] = Value::from(format!("payments-{i:05}"));
                o["spec"]["candidates"]["ociRepositoryRef"]["name"] =
                    Value::from(format!("payments-candidates-{i:05}"));
            }
            if o["kind"] == "Kustomization" {
                o["spec"]["sourceRef"]["name"] = Value::from(format!("payments-{i:05}"));
            }
            if o["metadata"]["labels"].is_object() {
                o["metadata"]["labels"]["delivery.pacto.trianalab.io/apply-ref"] =
                    Value::from(format!("payments-{i:05}"));
            }
            out.push(o);
        }
    }
    out
}

/// Creates `objects` in `ns` with four `kubectl create` processes at once.
fn create(kube: &kube_harness::Kube, ns: &str, objects: &[Value]) {
    const PROCESSES: usize = 4;
    let per = objects.len().div_ceil(PROCESSES);
    let children: Vec<_> = objects
        .chunks(per)
        .map(|chunk| {
            let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": chunk});
            let mut c = kube.kubectl(&["create", "-n", ns, "-o", "name", "-f", "-"]);
            let text = list.to_string();
            std::thread::spawn(move || run_with(&mut c, Some(&text), Duration::from_secs(3600)))
        })
        .collect();
    for c in children {
        c.join().unwrap().assert_code(0);
    }
}

/// What `/usr/bin/time -v` says of one run.
struct Timed {
    wall: f64,
    user: f64,
    system: f64,
    max_rss_kb: u64,
}

/// The figures of `/usr/bin/time -v`'s report (the last lines of stderr).
fn timed(stderr: &str) -> Timed {
    let field = |name: &str| -> &str {
        stderr
            .lines()
            .rev()
            .find_map(|l| l.trim().strip_prefix(name))
            .unwrap_or_else(|| panic!("no {name:?} in {stderr}"))
            .trim()
    };
    // "Elapsed (wall clock) time (h:mm:ss or m:ss): 0:01.23"
    let wall = field("Elapsed (wall clock) time (h:mm:ss or m:ss):")
        .split(':')
        .fold(0.0, |acc, part| acc * 60.0 + part.parse::<f64>().unwrap());
    Timed {
        wall,
        user: field("User time (seconds):").parse().unwrap(),
        system: field("System time (seconds):").parse().unwrap(),
        max_rss_kb: field("Maximum resident set size (kbytes):")
            .parse()
            .unwrap(),
    }
}

/// CPU seconds (user + system) the cluster's `name` process (`kube-apiserver`, `etcd`) has used,
/// from `/proc/PID/stat` (fields 14 and 15, in clock ticks of `getconf CLK_TCK`).
fn cpu_seconds(kube: &kube_harness::Kube, name: &str) -> f64 {
    let pid = std::fs::read_to_string(kube.dir().join(format!("pids/{name}.pid"))).unwrap();
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())).unwrap();
    // The command name (field 2) is in parentheses and may hold spaces: count after it.
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    let tck = Command::new("getconf").arg("CLK_TCK").output().unwrap();
    ticks
        / String::from_utf8_lossy(&tck.stdout)
            .trim()
            .parse::<f64>()
            .unwrap()
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// Seconds since midnight of an RFC 3339 UTC time with a fraction (`...T12:34:56.789012Z`).
fn day_seconds(t: &str) -> f64 {
    let time = t.split('T').nth(1).unwrap_or("").trim_end_matches('Z');
    time.split(':').fold(0.0, |acc, part| {
        acc * 60.0 + part.parse::<f64>().unwrap_or(0.0)
    })
}

/// What the API server's audit log says of the run's requests (those after byte `from` whose
/// User-Agent is the tool's, completed): per verb and resource the count and the seconds the
/// server took (received to completed), as `verb resource: N requests, S s at the server`.
fn server_time(kube: &kube_harness::Kube, from: usize) -> Vec<String> {
    let text = std::fs::read_to_string(kube.audit_log()).unwrap();
    let mut rows: Vec<(String, usize, f64)> = Vec::new();
    for e in text[from.min(text.len())..]
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| {
            e["stage"] == "ResponseComplete"
                && e["userAgent"]
                    .as_str()
                    .is_some_and(|u| u.starts_with("kubectl-pacto/"))
        })
    {
        let what = match e["objectRef"]["resource"].as_str() {
            Some(r) => {
                let sub = e["objectRef"]["subresource"].as_str().unwrap_or("");
                let r = if sub.is_empty() {
                    r.to_string()
                } else {
                    format!("{r}/{sub}")
                };
                format!("{} {r}", e["verb"].as_str().unwrap_or(""))
            }
            None => format!("get {}", e["requestURI"].as_str().unwrap_or("")),
        };
        let took = day_seconds(e["stageTimestamp"].as_str().unwrap_or(""))
            - day_seconds(e["requestReceivedTimestamp"].as_str().unwrap_or(""));
        match rows.iter_mut().find(|(w, _, _)| *w == what) {
            Some(r) => {
                r.1 += 1;
                r.2 += took;
            }
            None => rows.push((what, 1, took)),
        }
    }
    rows.into_iter()
        .map(|(w, n, t)| format!("{w}: {n} request(s), {t:.2} s at the server"))
        .collect()
}

/// One timed run; the report's results, counted.
fn timed_run(kube: &kube_harness::Kube, bin: &Path, ns: &str, extra: &[&str]) -> (Timed, Value) {
    let home = tempfile::tempdir().unwrap();
    let mut c = Command::new("/usr/bin/time");
    c.arg("-v")
        .arg(bin)
        .args(["reconcile", "--once", "-n", ns, "-o", "json"])
        .args(extra)
        .args(["--kubeconfig", s(kube.kubeconfig())])
        .env("HOME", home.path())
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env_remove("KUBERNETES_SERVICE_PORT");
    let r = run_with(&mut c, None, Duration::from_secs(3600));
    r.assert_code(0);
    let report: Value = serde_json::from_str(&r.stdout).unwrap();
    (timed(&r.stderr), report)
}

fn results(report: &Value, want: &str) -> usize {
    report["stages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["result"] == want)
        .count()
}

#[test]
#[ignore = "a benchmark: run it with --ignored --nocapture (see the module's docs)"]
fn reconcile_against_the_real_server() {
    let bin = std::env::var_os("KUBECTL_PACTO_BENCH_BIN")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| PACTO.into());
    let sizes: Vec<usize> = std::env::var("KUBECTL_PACTO_BENCH_STAGES")
        .unwrap_or_else(|_| "1000,10000".into())
        .split(',')
        .map(|n| {
            n.trim()
                .parse()
                .expect("KUBECTL_PACTO_BENCH_STAGES: numbers")
        })
        .collect();
    let audit = match std::env::var("KUBECTL_PACTO_BENCH_AUDIT_LEVEL").as_deref() {
        Err(_) | Ok("RequestResponse") => kube_harness::Audit::RequestResponse,
        Ok("Metadata") => kube_harness::Audit::Metadata,
        Ok("None") => kube_harness::Audit::Off,
        Ok(other) => panic!(
            "KUBECTL_PACTO_BENCH_AUDIT_LEVEL: RequestResponse, Metadata or None, not {other:?}"
        ),
    };
    let kube = kube_harness::Kube::start_with(kube_harness::Options { audit });
    apply_flux_and_argo_crds(&kube);
    let atomic = std::env::var("KUBECTL_PACTO_BENCH_CONDITIONS").as_deref() == Ok("atomic");
    if atomic {
        // The Stage CRD without the list-map marker: the run writes by guarded merge patch.
        let mut crd = yaml_documents("examples/cluster/stages.delivery.pacto.trianalab.io.yaml")
            .pop()
            .unwrap();
        let c = &mut crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]
            ["status"]["properties"]["conditions"];
        let m = c.as_object_mut().unwrap();
        m.remove("x-kubernetes-list-type");
        m.remove("x-kubernetes-list-map-keys");
        kube.kubectl_ok(&["apply", "-f", "-"], Some(&crd.to_string()));
    }
    println!(
        "binary: {}; audit level {audit:?}; status.conditions {}",
        bin.display(),
        if atomic {
            "atomic (merge patches)"
        } else {
            "a list-map (server-side applies)"
        }
    );
    println!("| Stages | run | wall s | user s | sys s | max RSS MB | kube-apiserver CPU s | etcd CPU s | load before |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for n in sizes {
        let ns = kube.namespace("bench");
        create(&kube, &ns, &objects(&ns, n));
        for (run, want) in [("writes", "updated"), ("no-op", "unchanged")] {
            let load = load_average();
            let audited_from = std::fs::metadata(kube.audit_log()).map_or(0, |m| m.len() as usize);
            let cpu_before = ["kube-apiserver", "etcd"].map(|p| cpu_seconds(&kube, p));
            let (t, report) = timed_run(&kube, &bin, &ns, &[]);
            let cpu = ["kube-apiserver", "etcd"].map(|p| cpu_seconds(&kube, p));
            if std::env::var_os("KUBECTL_PACTO_BENCH_AUDIT").is_some()
                && audit != kube_harness::Audit::Off
            {
                // The audit backend writes each event as its request completes.
                std::thread::sleep(Duration::from_secs(1));
                for line in server_time(&kube, audited_from) {
                    println!("    {run}: {line}");
                }
            }
            assert_eq!(results(&report, want), n, "{run}: {report}");
            println!(
                "| {n} | {run} | {:.2} | {:.2} | {:.2} | {} | {:.2} | {:.2} | {load} |",
                t.wall,
                t.user,
                t.system,
                t.max_rss_kb / 1024,
                cpu[0] - cpu_before[0],
                cpu[1] - cpu_before[1],
            );
        }
    }
}
