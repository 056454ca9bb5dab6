//! The krew plugin manifest, krew/pacto.yaml, and its release step krew/update-sha256.sh.
//!
//! No krew validator exists as a schema or a package, so the rules are reimplemented here over the
//! parsed YAML: the manifest format (krew `pkg/index/types.go` and its plugin-manifest guide), what
//! krew's code enforces (`internal/index/validation/validate.go`) and what krew-index reviewers
//! enforce (the naming guide and the review bot), plus the manifest's agreement with this package.
//! Every failure names the file the rule comes from. What a manifest alone cannot show (krew
//! installing each platform, a LICENSE inside each archive) is checked on the release archives by
//! krew/update-sha256.sh, tested in `release_step.rs`.
//!
//! The rules live by source: krew's code in `code_rules.rs`, validate-krew-manifest and the
//! krew-index review in `index_rules.rs`, this package's own in `package_rules.rs`. This file
//! loads the manifest, collects the rules' reports and holds the tests that run them on
//! krew/pacto.yaml and on the caveats; `broken_manifests.rs` shows that each rule fires and
//! `release_step.rs` tests krew/update-sha256.sh.

mod broken_manifests;
mod code_rules;
mod index_rules;
mod package_rules;
mod release_script;
mod release_step;

use self::code_rules::code_rules;
use self::index_rules::{review_rules, validate_manifest_rules};
use self::package_rules::package_rules;
use crate::common::*;
use serde_json::Value;
use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::process::Command;

// Where each rule comes from.
const VALIDATE_GO: &str = "krew internal/index/validation/validate.go";
const SEMVER_GO: &str =
    "krew internal/installation/semver/version.go (k8s.io/apimachinery version.ParseSemantic)";
const VALIDATE_MANIFEST_GO: &str = "krew cmd/validate-krew-manifest/main.go";
const INSTALL_GO: &str = "krew internal/installation/install.go";
const TYPES_GO: &str = "krew pkg/index/types.go";
const LABELS_GO: &str = "k8s.io/apimachinery meta/v1 LabelSelectorAsSelector";
const SYSLIST_GO: &str = "Go go/build/syslist.go (krew matches selectors against GOOS/GOARCH)";
const MANIFEST_DOC: &str = "krew site/content/docs/developer-guide/plugin-manifest.md";
const NAMING_GUIDE: &str = "krew site/content/docs/developer-guide/develop/naming-guide.md";
const REVIEW: &str = "krew-index review bot (kubernetes-sigs/krew-index#4118, #3673, #2899)";
const SEARCH_GO: &str = "krew cmd/krew/cmd/search.go (limitString 50)";
const KREW_131: &str = "kubernetes-sigs/krew#131 (Windows bins end in .exe)";
const KREW_812: &str = "kubernetes-sigs/krew#812 (krew links one bin)";
const PACKAGE: &str = "plugins/kubectl-pacto/Cargo.toml (what this package builds and releases)";
const YAML: &str = "YAML 1.2 (serde-saphyr, strict: duplicate keys are an error)";
const RELEASE_STEP: &str = "krew/update-sha256.sh (placeholders stay flagged until it runs)";

const API_VERSION: &str = "krew.googlecontainertools.github.com/v1alpha2";
const HOMEPAGE: &str = "https://github.com/trianalab/kubectl-pacto";
const RELEASES: &str = "https://github.com/trianalab/kubectl-pacto/releases/download";
/// The sha256 written before a release exists (valid lowercase hex, the hash of nothing).
const PLACEHOLDER_SHA256: &str = "0000000000000000000000000000000000000000000000000000000000000000";
/// The comment lines that say the sha256 values are placeholders; the release step drops them.
const PLACEHOLDER_COMMENT: &str = "# PLACEHOLDER:";

/// The released platforms and the Rust target each archive is built for: the musl and darwin
/// targets of the reference's Rust anchor manifest (krew-index plugins/view-allocations.yaml).
const TARGETS: [(&str, &str, &str); 4] = [
    ("linux", "amd64", "x86_64-unknown-linux-musl"),
    ("linux", "arm64", "aarch64-unknown-linux-musl"),
    ("darwin", "amd64", "x86_64-apple-darwin"),
    ("darwin", "arm64", "aarch64-apple-darwin"),
];

fn manifest_path() -> PathBuf {
    repo().join("krew/pacto.yaml")
}

/// The name of the executable this package builds, which krew must link.
fn binary_name() -> String {
    Path::new(PACTO)
        .file_stem()
        .expect("binary file name")
        .to_string_lossy()
        .into_owned()
}

/// A manifest file: its name (krew takes the plugin name from it), text and parsed YAML.
struct Manifest {
    file_name: String,
    text: String,
    doc: Value,
}

impl Manifest {
    fn parse(file_name: &str, text: &str) -> Result<Manifest, String> {
        let doc: Value = serde_saphyr::from_str(text).map_err(|e| e.to_string())?;
        Ok(Manifest {
            file_name: file_name.to_string(),
            text: text.to_string(),
            doc,
        })
    }

    fn load(path: &Path) -> Manifest {
        let text =
            std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let file_name = path.file_name().unwrap().to_string_lossy().into_owned();
        Manifest::parse(&file_name, &text)
            .unwrap_or_else(|e| panic!("{}: not YAML krew can read: {e}", path.display()))
    }

    fn spec(&self) -> &Value {
        self.doc.get("spec").unwrap_or(&Value::Null)
    }

    fn platforms(&self) -> &[Value] {
        self.spec()
            .get("platforms")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }
}

/// Rule violations, each ending with the rule's source.
#[derive(Default)]
struct Report(Vec<String>);

impl Report {
    fn check(&mut self, ok: bool, source: &str, what: impl Display) {
        if !ok {
            self.0.push(format!("{what}  [rule: {source}]"));
        }
    }

    /// A string field as krew's Go structs read it: missing or null is "".
    fn string<'a>(&mut self, v: &'a Value, key: &str, at: &str) -> &'a str {
        match v.get(key) {
            None | Some(Value::Null) => "",
            Some(Value::String(s)) => s,
            Some(other) => {
                self.0.push(format!(
                    "{at}{key} is {other}, not a string  [rule: {TYPES_GO}]"
                ));
                ""
            }
        }
    }

    fn assert_clean(&self, file: &str, rules: &str) {
        assert!(
            self.0.is_empty(),
            "{file} breaks {} rule(s) of {rules}:\n  {}",
            self.0.len(),
            self.0.join("\n  ")
        );
    }
}

/// Every rule above, for a manifest of the given package version.
fn violations(file_name: &str, text: &str, version: &str) -> Vec<String> {
    let m = match Manifest::parse(file_name, text) {
        Ok(m) => m,
        Err(e) => return vec![format!("not YAML krew can read: {e}  [rule: {YAML}]")],
    };
    [
        code_rules(&m),
        validate_manifest_rules(&m),
        review_rules(&m),
        package_rules(&m, version),
    ]
    .into_iter()
    .flat_map(|r| r.0)
    .collect()
}

// ----- tests -------------------------------------------------------------------------------------

#[test]
fn manifest_passes_krew_validation_code() {
    code_rules(&Manifest::load(&manifest_path())).assert_clean("krew/pacto.yaml", VALIDATE_GO);
}

#[test]
fn manifest_passes_validate_krew_manifest() {
    validate_manifest_rules(&Manifest::load(&manifest_path()))
        .assert_clean("krew/pacto.yaml", VALIDATE_MANIFEST_GO);
}

#[test]
fn manifest_passes_krew_index_review() {
    review_rules(&Manifest::load(&manifest_path()))
        .assert_clean("krew/pacto.yaml", "the naming guide and the review bot");
}

#[test]
fn manifest_matches_this_package() {
    package_rules(&Manifest::load(&manifest_path()), env!("CARGO_PKG_VERSION"))
        .assert_clean("krew/pacto.yaml", "this package's release");
}

// ----- the caveats ------------------------------------------------------------------------------

/// The commands the caveats tell users to run (the indented blocks), run in a fake krew home:
/// they must install a completion shim that answers like the shipped kubectl_complete-pacto, and
/// man pages. `kubectl pacto` is run as `kubectl-pacto`, which is what kubectl executes.
#[cfg(unix)]
#[test]
fn caveats_commands_work() {
    let m = Manifest::load(&manifest_path());
    let caveats = m.spec()["caveats"].as_str().expect("spec.caveats");
    let mut blocks: Vec<String> = Vec::new();
    let mut in_block = false;
    for line in caveats.lines() {
        if line.starts_with("  ") {
            if !in_block {
                blocks.push(String::new());
            }
            in_block = true;
            let cmd = line
                .trim_start()
                .replace("kubectl pacto ", "kubectl-pacto ");
            blocks.last_mut().unwrap().push_str(&(cmd + "\n"));
        } else {
            in_block = false;
        }
    }
    assert_eq!(
        blocks.len(),
        2,
        "want a completion block and a man block: {blocks:?}"
    );

    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let krew_bin = tmp.path().join("krew/bin");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&krew_bin).unwrap();
    // What krew does for the one bin it links.
    std::os::unix::fs::symlink(PACTO, krew_bin.join("kubectl-pacto")).unwrap();
    let path = format!("{}:/usr/bin:/bin", krew_bin.display());
    for block in &blocks {
        let r = run(Command::new("sh")
            .args(["-c", block])
            .env_clear()
            .env("HOME", &home)
            .env("KREW_ROOT", tmp.path().join("krew"))
            .env("PATH", &path));
        assert_eq!(r.code, Some(0), "caveats command failed:\n{block}\n{r:?}");
    }

    let shim = krew_bin.join("kubectl_complete-pacto");
    assert!(
        shim.is_file(),
        "the caveats did not create {}",
        shim.display()
    );
    for words in [
        vec![""],
        vec!["he"],
        vec!["health", "-"],
        vec!["health", "-f", ""],
        vec!["--help"],
        vec!["health", "test", ""],
    ] {
        let got = run(Command::new(&shim).args(&words).env("PATH", &path));
        let want = run(Command::new(COMPLETE_SHIM).args(&words));
        assert_eq!(
            (got.code, &got.stdout),
            (want.code, &want.stdout),
            "the caveats' shim and kubectl_complete-pacto answer {words:?} differently"
        );
    }
    let page = home.join(".local/share/man/man1/kubectl-pacto.1");
    let text = std::fs::read_to_string(&page)
        .unwrap_or_else(|e| panic!("the caveats did not write {}: {e}", page.display()));
    assert!(text.contains(".TH kubectl-pacto 1"), "{text}");
}
