//! What reaches a terminal: with stdout a terminal (a pseudo-terminal of util-linux `script`),
//! no character that could drive it is printed raw (a C1 CSI, U+009B, starts a control
//! sequence; U+202E, the right-to-left override, reorders what is shown): `-o json` writes them
//! as JSON escapes, `-o yaml` in double quotes as YAML escapes (both read back to the same
//! value), the command line's errors show the words given escaped. On a pipe the bytes are
//! kubectl's. A long message from a server is cut on stderr, saying how much was cut.

use crate::common::*;
use serde_json::Value;

const C1_CSI: char = '\u{9b}';
const RLO: char = '\u{202e}';

/// A Pacto whose finding message holds a right-to-left override (and, when `c1`, a C1 CSI).
fn hostile_file(dir: &std::path::Path, c1: bool) -> String {
    let text =
        std::fs::read_to_string(fixture("pacto").join("09-noncompliant-warning-before-error.yaml"))
            .unwrap();
    let hostile = if c1 {
        "\\u202eRLO \\u009b31m declared"
    } else {
        "\\u202eRLO declared"
    };
    let text = text.replacen(
        "message: declared job, observed Deployment",
        &format!("message: \"{hostile}\""),
        1,
    );
    assert!(
        text.contains("RLO"),
        "the fixture changed: no finding message to replace"
    );
    let path = dir.join("hostile.yaml");
    std::fs::write(&path, text).unwrap();
    s(&path).to_string()
}

fn raw(text: &str) -> bool {
    text.contains(C1_CSI) || text.contains(RLO) || text.contains('\u{1b}')
}

/// The JSON document of a terminal's text (the first `{` to the end).
fn json_of(text: &str) -> Value {
    let start = text.find('{').unwrap_or_else(|| panic!("no JSON: {text}"));
    serde_json::from_str(&text[start..]).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn json_on_a_terminal_escapes_what_could_drive_it_and_reads_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let file = hostile_file(dir.path(), true);
    for args in [
        vec!["get", "-f", &file, "-o", "json"],
        vec!["explain", "-f", &file, "-o", "json"],
        vec![
            "health",
            "-f",
            &file,
            "--argocd-cm",
            "examples/argocd-cm.yaml",
            "-o",
            "json",
        ],
    ] {
        let piped = run(&mut pacto(&args));
        assert!(
            piped.stdout.contains(RLO),
            "{args:?}: the pipe keeps the bytes"
        );
        let tty = on_a_pty(PACTO, &args, &[]);
        assert!(tty.code == piped.code, "{args:?}: {}", tty.stdout);
        assert!(
            !raw(&tty.stdout),
            "{args:?}: raw on the terminal: {:?}",
            tty.stdout
        );
        assert!(tty.stdout.contains("\\u202e"), "{args:?}: {}", tty.stdout);
        assert_eq!(json_of(&tty.stdout), json_of(&piped.stdout), "{args:?}");
    }
    // The C1 CSI too, where the JSON holds it.
    let tty = on_a_pty(PACTO, &["get", "-f", &file, "-o", "json"], &[]);
    assert!(tty.stdout.contains("\\u009b31m"), "{}", tty.stdout);
}

#[test]
fn yaml_on_a_terminal_quotes_and_escapes_what_could_drive_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = hostile_file(dir.path(), false);
    let args = ["get", "-f", &file, "-o", "yaml"];
    let piped = run(&mut pacto(&args));
    piped.assert_code(0);
    assert!(
        piped.stdout.contains("message: \u{202e}RLO declared\n"),
        "{}",
        piped.stdout
    );
    let tty = on_a_pty(PACTO, &args, &[]);
    assert_eq!(tty.code, Some(0), "{}", tty.stdout);
    assert!(!raw(&tty.stdout), "{:?}", tty.stdout);
    assert!(
        tty.stdout.contains("message: \"\\u202ERLO declared\"\n"),
        "{}",
        tty.stdout
    );
    let read = |t: &str| serde_saphyr::from_str::<Value>(t).unwrap();
    assert_eq!(read(&tty.stdout), read(&piped.stdout));
    // A C1 control is what kubectl's YAML printer refuses (go-yaml's words, no echo).
    let c1 = hostile_file(dir.path(), true);
    let tty = on_a_pty(PACTO, &["get", "-f", &c1, "-o", "yaml"], &[]);
    assert_eq!(tty.code, Some(1));
    assert!(
        tty.stdout
            .contains("yaml: control characters are not allowed"),
        "{}",
        tty.stdout
    );
    assert!(!raw(&tty.stdout), "{:?}", tty.stdout);
}

/// clap quotes the arguments it refuses; on a terminal they must not arrive raw (clap's own
/// colours would pass an escape sequence through).
#[test]
fn command_line_errors_show_the_words_given_escaped() {
    let hostile = "g\u{1b}]0;PWNED\u{7}\u{202e}et";
    for args in [
        vec![hostile],
        vec!["get", "--bogus", hostile],
        vec!["get", &format!("--output-x{hostile}")],
        vec!["health", "-f", "x", "--argocd-cm", "y", hostile],
    ] {
        let tty = on_a_pty(PACTO, &args, &[]);
        assert_eq!(tty.code, Some(1), "{args:?}: {}", tty.stdout);
        assert!(
            tty.stdout.starts_with("error: "),
            "{args:?}: {}",
            tty.stdout
        );
        assert!(!raw(&tty.stdout), "{args:?}: {:?}", tty.stdout);
        let piped = run(&mut pacto(&args));
        assert_eq!(piped.code, Some(1));
        assert!(!raw(&piped.stderr), "{args:?}: {:?}", piped.stderr);
    }
}

/// `--help` and `--version` that cannot be written (a full disk) fail, as other output does.
#[cfg(target_os = "linux")]
#[test]
fn help_and_version_that_cannot_be_written_fail() {
    for args in [
        vec!["--help"],
        vec!["--version"],
        vec!["get", "--help"],
        vec![],
    ] {
        let mut sh = std::process::Command::new("sh");
        sh.args(["-c", "exec \"$0\" \"$@\" > /dev/full", PACTO])
            .args(&args);
        let r = run(&mut sh);
        assert_eq!(r.code, Some(1), "{args:?}");
        assert!(
            r.stderr.contains("writing to standard output"),
            "{args:?}: {}",
            r.stderr
        );
    }
    let r = run(&mut pacto(&["--version"]));
    r.assert_code(0);
}

/// A server's 10 MB `Status.message` reaches stderr cut, with how much was cut; the start of it
/// stays.
#[test]
fn a_long_server_message_is_cut_on_stderr() {
    use fake_apiserver::{FakeApiServer, Fault, FaultAction, Resource};
    let server = FakeApiServer::start();
    server.register(Resource::pacto());
    let message = format!("denied: {}", "x".repeat(10 << 20));
    server.fault(Fault::always(
        "/pactos",
        FaultAction::Reply(
            403,
            serde_json::json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
                "reason": "Forbidden", "code": 403, "message": message}),
        ),
    ));
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path(), Some("shop"));
    let r = run(&mut isolated(
        dir.path(),
        "2026-11-29T12:00:00Z",
        &["get", "pactos", "--kubeconfig", s(&kubeconfig)],
    ));
    r.assert_code(1).assert_no_panic();
    assert!(
        r.stderr.contains("denied: xxx"),
        "{}",
        &r.stderr[..r.stderr.len().min(500)]
    );
    assert!(
        r.stderr.len() < 64 * 1024,
        "{} bytes on stderr",
        r.stderr.len()
    );
    assert!(
        r.stderr.contains("more bytes not shown)"),
        "{}",
        &r.stderr[r.stderr.len().saturating_sub(300)..]
    );
}

/// On a terminal, doctor's table fits the terminal's width (`COLUMNS`): the finding and the fix
/// are wrapped, each row continued on lines of its own; piped, each finding stays on one line.
/// The findings are the same, in the same order.
#[test]
fn doctor_fits_its_table_to_the_terminal() {
    let args = ["doctor", "-f", "tests/fixtures/broken"];
    let piped = run(&mut pacto(&args));
    piped.assert_code(1);
    let widest = |text: &str| text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    assert!(widest(&piped.stdout) > 200, "{}", piped.stdout);
    let tty = on_a_pty(PACTO, &args, &[("COLUMNS", "120")]);
    assert_eq!(tty.code, Some(1), "{}", tty.stdout);
    assert!(widest(&tty.stdout) <= 120, "{}", tty.stdout);
    let ids = |text: &str| {
        text.lines()
            .filter_map(|l| l.split_whitespace().next())
            .filter(|w| w.len() == 3 && w.chars().skip(1).all(|c| c.is_ascii_digit()))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&tty.stdout), ids(&piped.stdout));
    assert!(!ids(&piped.stdout).is_empty());
    // -o wide keeps each finding on one line, on a terminal too.
    let wide = on_a_pty(
        PACTO,
        &["doctor", "-f", "tests/fixtures/broken", "-o", "wide"],
        &[("COLUMNS", "120")],
    );
    assert!(widest(&wide.stdout) > 200, "{}", wide.stdout);
}

/// health's table on a terminal wraps MESSAGE to the terminal's width, every object still on its
/// own first line in input order; piped, and with `-o wide` on a terminal, messages stay whole.
#[test]
fn health_fits_its_table_to_the_terminal() {
    let args = [
        "health",
        "-f",
        "examples/objects",
        "--argocd-cm",
        "examples/argocd-cm.yaml",
    ];
    let piped = run(&mut pacto(&args));
    piped.assert_code(0);
    let widest = |text: &str| text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    assert!(widest(&piped.stdout) > 100, "{}", piped.stdout);
    let env = [("COLUMNS", "100"), ("NO_COLOR", "1")];
    let tty = on_a_pty(PACTO, &args, &env);
    assert_eq!(tty.code, Some(0), "{}", tty.stdout);
    assert!(widest(&tty.stdout) <= 100, "{}", tty.stdout);
    // The rows that start an object: NAMESPACE KIND NAME, the same in both.
    let names = |text: &str| {
        text.lines()
            .filter(|l| !l.starts_with(' '))
            .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&tty.stdout), names(&piped.stdout));
    assert!(names(&piped.stdout).len() > 5);
    // The message text is all there, wrapped at spaces: the payments Pacto's.
    let whole = piped
        .stdout
        .lines()
        .find(|l| l.contains(" payments "))
        .map(|l| {
            l[piped
                .stdout
                .lines()
                .next()
                .unwrap()
                .find("MESSAGE")
                .unwrap()..]
                .to_string()
        })
        .unwrap();
    let wrapped: Vec<&str> = tty.stdout.lines().collect();
    let col = wrapped[0].find("MESSAGE").unwrap();
    let at = wrapped
        .iter()
        .position(|l| l.contains(" payments "))
        .unwrap();
    let mut joined = vec![wrapped[at][col..].trim_end()];
    joined.extend(
        wrapped[at + 1..]
            .iter()
            .take_while(|l| l.starts_with(' '))
            .map(|l| l.trim()),
    );
    assert_eq!(joined.join(" "), whole.trim_end());
    // -o wide keeps each message on one line, on a terminal too, and names the rule.
    let mut wide_args = args.to_vec();
    wide_args.extend(["-o", "wide"]);
    let wide = on_a_pty(PACTO, &wide_args, &env);
    assert!(widest(&wide.stdout) > 100, "{}", wide.stdout);
    assert_eq!(cell(&wide.stdout, 0, "RULE"), "pacto.trianalab.io/Pacto");
    assert_eq!(cell(&wide.stdout, 0, "SHADOWS"), "-");
}
