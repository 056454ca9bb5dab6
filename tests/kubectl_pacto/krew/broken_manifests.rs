//! Each rule of the krew manifest checks must actually fire: broken copies of krew/pacto.yaml,
//! one per rule, are reported under that rule's source and with that rule's message.

use super::{
    manifest_path, violations, API_VERSION, INSTALL_GO, KREW_131, KREW_812, LABELS_GO,
    MANIFEST_DOC, NAMING_GUIDE, PACKAGE, PLACEHOLDER_COMMENT, PLACEHOLDER_SHA256, RELEASES,
    RELEASE_STEP, REVIEW, SEMVER_GO, SYSLIST_GO, TYPES_GO, VALIDATE_GO, VALIDATE_MANIFEST_GO, YAML,
};

/// Each rule must actually fire: a broken copy of the manifest is reported, under that rule's
/// source and with that rule's message.
#[test]
fn checks_catch_broken_manifests() {
    let base = std::fs::read_to_string(manifest_path()).unwrap();
    let v = env!("CARGO_PKG_VERSION");
    let once = |from: &str, to: &str| -> String {
        assert!(base.contains(from), "the manifest no longer has {from:?}");
        base.replacen(from, to, 1)
    };
    let sel = "    - selector:\n        matchLabels:\n          os: linux\n          arch: amd64\n";
    let bin = "      bin: kubectl-pacto\n";
    let short = "  shortDescription: Test and inspect Argo CD and Flux health gates\n";
    let ci = "waits for a gate to pass in a pipeline.\n";
    let name = "  name: pacto\n";
    let version = format!("version: v{v}\n");
    let windows = format!(
        "{base}    - selector:\n        matchLabels:\n          os: windows\n          arch: amd64\n      \
         uri: {RELEASES}/v{v}/kubectl-pacto-v{v}-x86_64-pc-windows-msvc.zip\n      \
         sha256: \"{PLACEHOLDER_SHA256}\"\n      bin: kubectl-pacto\n"
    );
    let unflagged: String = base
        .lines()
        .filter(|l| !l.starts_with(PLACEHOLDER_COMMENT))
        .map(|l| format!("{l}\n"))
        .collect();
    let no_platforms = format!(
        "{}  platforms: []\n",
        base.split("  platforms:\n").next().unwrap()
    );

    let mut missed = Vec::new();
    let mut expect = |what: &str, file: &str, text: String, source: &str, message: &str| {
        let found = violations(file, &text, v);
        if !found
            .iter()
            .any(|f| f.contains(message) && f.rsplit("[rule: ").next().unwrap().contains(source))
        {
            missed.push(format!(
                "{what}: want {message:?} [rule: {source}], got {found:#?}"
            ));
        }
    };
    let (yaml, exprs) = ("pacto.yaml", "    - selector:\n        matchExpressions:\n");

    expect(
        "old apiVersion",
        yaml,
        once(API_VERSION, "krew.googlecontainertools.github.com/v1alpha1"),
        VALIDATE_GO,
        "apiVersion is",
    );
    expect(
        "wrong kind",
        yaml,
        once("kind: Plugin", "kind: Plugins"),
        VALIDATE_GO,
        "not constants.PluginKind",
    );
    expect(
        "name is not the file name",
        yaml,
        once(name, "  name: pacto-x\n"),
        VALIDATE_GO,
        "metadata.name is \"pacto-x\"",
    );
    expect(
        "Windows reserved name",
        "con.yaml",
        once(name, "  name: con\n"),
        VALIDATE_GO,
        "Windows reserved",
    );
    expect(
        "name outside [\\w-]",
        "pac.to.yaml",
        once(name, "  name: pac.to\n"),
        VALIDATE_GO,
        "must match ^[\\w-]+$",
    );
    expect(
        ".yml extension",
        "pacto.yml",
        base.clone(),
        VALIDATE_MANIFEST_GO,
        "ManifestExtension",
    );
    expect(
        "version without v",
        yaml,
        once(&version, "version: 0.1.0\n"),
        SEMVER_GO,
        "not starting with 'v'",
    );
    expect(
        "two-part version",
        yaml,
        once(&version, "version: v0.1\n"),
        SEMVER_GO,
        "MAJOR.MINOR.PATCH",
    );
    expect(
        "zero-prefixed version",
        yaml,
        once(&version, "version: v01.1.0\n"),
        SEMVER_GO,
        "zero-prefixed",
    );
    expect(
        "bad pre-release",
        yaml,
        once(&version, "version: v0.1.0-rc..1\n"),
        SEMVER_GO,
        "illegal version",
    );
    expect(
        "version not the crate's",
        yaml,
        once(&version, "version: v99.0.0\n"),
        PACKAGE,
        "but the package",
    );
    expect(
        "uppercase sha256",
        yaml,
        once("\"0000", "\"A000"),
        VALIDATE_GO,
        "must match ^[a-f0-9]{64}$",
    );
    expect(
        "short sha256",
        yaml,
        once("\"0000000000", "\"000000000"),
        VALIDATE_GO,
        "must match ^[a-f0-9]{64}$",
    );
    expect(
        "no sha256",
        yaml,
        once("      sha256:", "      sha256: \"\"\n      x:"),
        VALIDATE_GO,
        "sha256 has to be set",
    );
    expect(
        "no uri",
        yaml,
        once("      uri:", "      uri: \"\"\n      x:"),
        VALIDATE_GO,
        "uri has to be set",
    );
    expect(
        "files: []",
        yaml,
        once(bin, &format!("{bin}      files: []\n")),
        VALIDATE_GO,
        "unspecified or non-empty",
    );
    expect(
        "files without from",
        yaml,
        once(bin, &format!("{bin}      files:\n        - {{to: .}}\n")),
        VALIDATE_GO,
        "from has to be set",
    );
    expect(
        "files without to",
        yaml,
        once(bin, &format!("{bin}      files:\n        - {{from: x}}\n")),
        VALIDATE_GO,
        "to has to be set",
    );
    expect(
        "files given",
        yaml,
        once(
            bin,
            &format!("{bin}      files:\n        - {{from: \"*\", to: .}}\n"),
        ),
        MANIFEST_DOC,
        "omit it",
    );
    expect(
        "no bin",
        yaml,
        once(bin, ""),
        VALIDATE_GO,
        "bin has to be set",
    );
    expect(
        "bin climbs out",
        yaml,
        once(bin, "      bin: ../kubectl-pacto\n"),
        INSTALL_GO,
        "IsSubPath",
    );
    expect(
        "absolute bin",
        yaml,
        once(bin, "      bin: /usr/local/bin/kubectl-pacto\n"),
        TYPES_GO,
        "must be relative",
    );
    expect(
        "bin not the built binary",
        yaml,
        once(bin, "      bin: kubectl-pacto-bin\n"),
        PACKAGE,
        "but the package builds",
    );
    expect(
        "selector key libc",
        yaml,
        once("arch: amd64\n", "arch: amd64\n          libc: musl\n"),
        VALIDATE_GO,
        "key \"libc\" not supported",
    );
    expect(
        "matchLabels: {}",
        yaml,
        once(sel, "    - selector:\n        matchLabels: {}\n"),
        VALIDATE_GO,
        "matchLabels specified but empty",
    );
    expect(
        "matchExpressions: []",
        yaml,
        once(sel, &format!("{sel}        matchExpressions: []\n")),
        VALIDATE_GO,
        "matchExpressions specified but empty",
    );
    expect(
        "selector: {}",
        yaml,
        once(sel, "    - selector: {}\n"),
        VALIDATE_GO,
        "empty selector",
    );
    expect(
        "no selector",
        yaml,
        once(sel, "    - selector: null\n"),
        VALIDATE_GO,
        "nil selector",
    );
    expect(
        "overlapping matchLabels",
        yaml,
        once(
            "os: linux\n          arch: arm64\n",
            "os: linux\n          arch: amd64\n",
        ),
        VALIDATE_MANIFEST_GO,
        "select os=linux/arch=amd64",
    );
    let not_windows_amd64 = format!(
        "{exprs}          - {{key: os, operator: NotIn, values: [windows]}}\n          \
         - {{key: arch, operator: In, values: [amd64]}}\n"
    );
    expect(
        "overlapping matchExpressions",
        yaml,
        once(sel, &not_windows_amd64),
        VALIDATE_MANIFEST_GO,
        "select os=darwin/arch=amd64",
    );
    expect(
        "invalid operator",
        yaml,
        once(
            sel,
            &format!("{exprs}          - {{key: os, operator: Equals, values: [linux]}}\n"),
        ),
        LABELS_GO,
        "not a valid label selector operator",
    );
    expect(
        "In without values",
        yaml,
        once(
            sel,
            &format!("{exprs}          - {{key: os, operator: In}}\n"),
        ),
        LABELS_GO,
        "can't be empty",
    );
    expect(
        "unsupported pair",
        yaml,
        once("arch: amd64\n", "arch: riscv64\n"),
        VALIDATE_MANIFEST_GO,
        "doesn't match any supported platform",
    );
    expect(
        "not a GOOS",
        yaml,
        once("os: linux\n", "os: Linux\n"),
        SYSLIST_GO,
        "os=\"Linux\" is not a Go GOOS",
    );
    let x64 = format!(
        "{exprs}          - {{key: os, operator: In, values: [linux]}}\n          \
         - {{key: arch, operator: In, values: [amd64, x64]}}\n"
    );
    expect(
        "not a GOARCH",
        yaml,
        once(sel, &x64),
        SYSLIST_GO,
        "arch=\"x64\" is not a Go GOARCH",
    );
    expect(
        "Windows bin without .exe",
        yaml,
        windows,
        KREW_131,
        ".exe on Windows",
    );
    expect(
        "shortDescription over 50",
        yaml,
        once(
            short,
            "  shortDescription: Test and inspect Argo CD and Flux health gates, fast\n",
        ),
        REVIEW,
        "at most 50",
    );
    expect(
        "shortDescription line break",
        yaml,
        once(
            short,
            "  shortDescription: \"Evaluate Argo CD\\nhealth gates\"\n",
        ),
        VALIDATE_GO,
        "has a line break",
    );
    expect(
        "no shortDescription",
        yaml,
        once(short, ""),
        VALIDATE_GO,
        "shortDescription is missing",
    );
    let wide = "This line is much longer than eighty columns, a width krew-index reviewers reject.";
    expect(
        "description over 80",
        yaml,
        once(ci, &format!("{ci}    {wide}\n")),
        REVIEW,
        "wrap at 80",
    );
    expect(
        "command line",
        yaml,
        once(
            ci,
            &format!("{ci}    Try: kubectl pacto health -f app.yaml\n"),
        ),
        REVIEW,
        "usage example (a command line)",
    );
    expect(
        "flag list",
        yaml,
        once(ci, &format!("{ci}    Use --argocd-cm for settings.\n")),
        MANIFEST_DOC,
        "usage example (a flag)",
    );
    expect(
        "inline code",
        yaml,
        once(ci, &format!("{ci}    See `health test`.\n")),
        REVIEW,
        "usage example (inline code)",
    );
    expect(
        "code block",
        yaml,
        once(ci, &format!("{ci}      health test DIR\n")),
        REVIEW,
        "usage example (an indented (code) line)",
    );
    expect(
        "no description",
        yaml,
        once("  description: |\n", "  description: \"\"\n  notes: |\n"),
        MANIFEST_DOC,
        "description is missing",
    );
    expect(
        "misspelt key",
        yaml,
        once("      sha256:", "      sha265:"),
        TYPES_GO,
        "sha265 is not a krew manifest field",
    );
    expect(
        "not a string",
        yaml,
        once(short, "  shortDescription: [a, b]\n"),
        TYPES_GO,
        "not a string",
    );
    expect(
        "uri .tgz",
        yaml,
        once(".tar.gz\n", ".tgz\n"),
        MANIFEST_DOC,
        ".tar.gz or .zip",
    );
    expect(
        "uri of another target",
        yaml,
        once("x86_64-apple-darwin", "aarch64-apple-darwin"),
        PACKAGE,
        "want the x86_64-apple-darwin release archive",
    );
    expect(
        "platform not released",
        yaml,
        once("arch: arm64\n", "arch: arm\n"),
        PACKAGE,
        "which is not released",
    );
    expect(
        "no platforms",
        yaml,
        no_platforms,
        VALIDATE_GO,
        "at least one platform",
    );
    expect(
        "caveats long line",
        yaml,
        once(
            "onto your PATH.\n",
            "onto your PATH, and nothing else, which is a limit of krew itself.\n",
        ),
        VALIDATE_MANIFEST_GO,
        "spec.caveats has lines over 80",
    );
    expect(
        "caveats without the shim",
        yaml,
        base.replace("kubectl_complete-pacto", "the shim"),
        KREW_812,
        "completion shim",
    );
    expect(
        "placeholders unflagged",
        yaml,
        unflagged,
        RELEASE_STEP,
        "without the '# PLACEHOLDER:' comment",
    );
    expect(
        "some placeholders",
        yaml,
        once("\"0000", "\"a000"),
        RELEASE_STEP,
        "all or none",
    );
    expect(
        "uppercase name",
        "Pacto.yaml",
        once(name, "  name: Pacto\n"),
        NAMING_GUIDE,
        "lowercase kebab-case",
    );
    expect(
        "kube- prefix",
        "kube-pacto.yaml",
        once(name, "  name: kube-pacto\n"),
        NAMING_GUIDE,
        "must not start with kube-",
    );
    expect(
        "resource abbreviation",
        "svc-pacto.yaml",
        once(name, "  name: svc-pacto\n"),
        NAMING_GUIDE,
        "abbreviates a resource",
    );
    expect(
        "link is not the binary",
        "pacto-x.yaml",
        once(name, "  name: pacto-x\n"),
        INSTALL_GO,
        "krew links the plugin as \"kubectl-pacto_x\"",
    );
    expect(
        "repository name",
        yaml,
        once(
            "homepage: https://github.com/trianalab/kubectl-pacto",
            "homepage: https://github.com/trianalab/pacto",
        ),
        NAMING_GUIDE,
        "should be named kubectl-pacto",
    );
    expect(
        "duplicate key",
        yaml,
        once("kind: Plugin\n", "kind: Plugin\nkind: Plugin\n"),
        YAML,
        "not YAML krew can read",
    );

    assert!(
        missed.is_empty(),
        "{} broken manifest(s) passed:\n{}",
        missed.len(),
        missed.join("\n")
    );
}
