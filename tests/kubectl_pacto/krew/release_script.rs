//! krew/release.sh: packs the built binaries, renders the manifest for the archives it packed,
//! and the archive installs in krew's layout so that kubectl finds the plugin. The layout is
//! krew's (`internal/installation/install.go`: the archive unpacked under
//! `store/<plugin>/<version>/`, `bin/kubectl-<plugin>` a link to the manifest's `bin`, the
//! manifest kept as `receipts/<plugin>.yaml`).

use super::{violations, Manifest};
use crate::common::*;
use std::path::Path;
use std::process::Command;

#[test]
fn a_packed_release_installs_in_krews_layout_and_kubectl_finds_it() {
    let out = tempfile::tempdir().unwrap();
    // The test build's binaries without their debug information (about a quarter of their
    // size), as a release build has none: packing them is then a few seconds of work.
    let built = tempfile::tempdir().unwrap();
    let bins = built.path();
    for b in [PACTO, COMPLETE_SHIM] {
        let copy = bins.join(Path::new(b).file_name().unwrap());
        std::fs::copy(b, &copy).unwrap();
        run(Command::new("strip").arg("-S").arg(&copy)).assert_code(0);
    }
    let target = "x86_64-unknown-linux-musl";
    let r = run_with(
        Command::new("bash").args([
            s(&repo().join("krew/release.sh")),
            "0.1.0",
            s(out.path()),
            "--bin-dir",
            s(bins),
            "--target",
            target,
        ]),
        None,
        std::time::Duration::from_secs(600),
    );
    r.assert_code(0);
    let archive = out
        .path()
        .join(format!("kubectl-pacto-v0.1.0-{target}.tar.gz"));
    assert!(archive.is_file(), "{}", r.stdout);
    // The rendered manifest: the packed platform only, its hash that of the archive.
    let text = std::fs::read_to_string(out.path().join("pacto.yaml")).unwrap();
    let m = Manifest::parse("pacto.yaml", &text).unwrap();
    assert_eq!(m.platforms().len(), 1, "{text}");
    let bytes = std::fs::read(&archive).unwrap();
    assert_eq!(
        m.platforms()[0]["sha256"].as_str().unwrap(),
        super::release_step::sha256_hex(&bytes)
    );
    // krew's rules and krew-index's all hold; only this package's own rule that a release
    // covers its four platforms is broken by packing one.
    let found: Vec<String> = violations("pacto.yaml", &text, "0.1.0")
        .into_iter()
        .filter(|v| !v.contains(super::PACKAGE))
        .collect();
    assert!(found.is_empty(), "{}", found.join("\n"));

    // Install as krew does, then ask kubectl.
    let krew = tempfile::tempdir().unwrap();
    let store = krew.path().join("store/pacto/v0.1.0");
    std::fs::create_dir_all(&store).unwrap();
    run(Command::new("tar").args(["-xzf", s(&archive), "-C", s(&store)])).assert_code(0);
    std::fs::create_dir_all(krew.path().join("bin")).unwrap();
    std::fs::create_dir_all(krew.path().join("receipts")).unwrap();
    std::os::unix::fs::symlink(
        store.join("kubectl-pacto"),
        krew.path().join("bin/kubectl-pacto"),
    )
    .unwrap();
    std::fs::write(krew.path().join("receipts/pacto.yaml"), &text).unwrap();
    assert!(store.join("LICENSE").is_file() && store.join("man/kubectl-pacto.1").is_file());
    let k = crate::kubectl_plugin::kubectl();
    let home = tempfile::tempdir().unwrap();
    let path_dirs = [krew.path().join("bin")];
    let dirs: Vec<&Path> = path_dirs.iter().map(|p| p.as_path()).collect();
    let list = run(&mut crate::kubectl_plugin::kubectl_cmd(
        &k,
        home.path(),
        &dirs,
        &["plugin", "list"],
    ));
    list.assert_code(0);
    assert!(
        list.stdout
            .contains(&krew.path().join("bin/kubectl-pacto").display().to_string()),
        "{}",
        list.stdout
    );
    let version = run(&mut crate::kubectl_plugin::kubectl_cmd(
        &k,
        home.path(),
        &dirs,
        &["pacto", "version"],
    ));
    version.assert_code(0);
    // The first line is the plugin's own version; the lines after it name the upstream
    // sources the engines follow (checked in main.rs).
    assert_eq!(
        version.stdout.lines().next(),
        Some(format!("kubectl-pacto {}", env!("CARGO_PKG_VERSION")).as_str()),
        "{}",
        version.stdout
    );
}

/// Arguments are checked before anything is built or written: a version that is not krew's
/// semantic version, an output directory that looks like an option.
#[test]
fn release_arguments_are_checked_first() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    for (version, outdir, want) in [
        (
            "1.0.0 evil",
            s(&out),
            "release.sh: VERSION '1.0.0 evil' is not a semantic version\n",
        ),
        (
            "../x",
            s(&out),
            "release.sh: VERSION '../x' is not a semantic version\n",
        ),
        (
            "0.1.0",
            "-x",
            "release.sh: OUTDIR '-x' must be a directory name (not empty, not starting with -)\n",
        ),
    ] {
        let r = run(Command::new("bash").args([
            s(&repo().join("krew/release.sh")),
            version,
            outdir,
            "--bin-dir",
            "/nonexistent",
            "--target",
            "x86_64-unknown-linux-musl",
        ]));
        r.assert_code(1);
        assert_eq!(r.stderr, want);
        assert!(!out.exists() && !Path::new("-x").exists());
    }
}
