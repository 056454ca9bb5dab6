//! The release step krew/update-sha256.sh, run on fake release archives: it writes the sha256 of
//! each archive into the manifest, changing nothing else, and refuses incomplete releases. This
//! is where what a manifest alone cannot show (a LICENSE inside each archive) is checked.

use super::{manifest_path, violations, Manifest, PLACEHOLDER_COMMENT, TARGETS};
use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

fn update_script() -> PathBuf {
    repo().join("krew/update-sha256.sh")
}

// ----- the release step: krew/update-sha256.sh ------------------------------------------------

/// SHA-256 (FIPS 180-4), so that the expected hashes do not come from the tool the script uses.
pub(super) fn sha256_hex(data: &[u8]) -> String {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((data.len() as u64).wrapping_mul(8)).to_be_bytes());
    for chunk in msg.chunks(64) {
        let mut w = [0u32; 64];
        for i in 0..16 {
            w[i] = u32::from_be_bytes(chunk[4 * i..4 * i + 4].try_into().unwrap());
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            hh = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *x = x.wrapping_add(y);
        }
    }
    h.iter().map(|x| format!("{x:08x}")).collect()
}

/// Fails unless `bash` and the `tar` the script lists archives with can run here: both are
/// prerequisites of the suite (tests/README.md), so a machine without them fails the test
/// with what to install rather than passing it untried.
fn need_bash_and_tar() {
    match Command::new("bash").args(["-c", "command -v tar"]).output() {
        Err(e) => panic!("the krew/update-sha256.sh test needs bash, which cannot run here: {e}"),
        Ok(o) if !o.status.success() => {
            panic!("the krew/update-sha256.sh test needs tar on PATH (install tar)")
        }
        Ok(_) => {}
    }
}

/// A fake release: one archive per released target in `dir`, named as the manifest's uris name
/// them for `version`, holding the bin, the completion shim and a LICENSE (unless `license` is
/// false). Returns archive file name → sha256.
fn fake_release(
    root: &Path,
    dir: &Path,
    version: &str,
    license: bool,
) -> std::collections::BTreeMap<String, String> {
    std::fs::create_dir_all(dir).unwrap();
    let mut out = std::collections::BTreeMap::new();
    for (n, (_, _, target)) in TARGETS.iter().enumerate() {
        let stage = root.join(format!("stage-{target}"));
        let _ = std::fs::remove_dir_all(&stage);
        std::fs::create_dir_all(&stage).unwrap();
        std::fs::write(
            stage.join("kubectl-pacto"),
            format!("fake kubectl-pacto for {target}\n"),
        )
        .unwrap();
        std::fs::write(
            stage.join("kubectl_complete-pacto"),
            format!("fake shim for {target}\n"),
        )
        .unwrap();
        if license {
            std::fs::write(stage.join("LICENSE"), "Apache License 2.0\n").unwrap();
        }
        let name = format!("kubectl-pacto-v{version}-{target}.tar.gz");
        let archive = dir.join(&name);
        let mut tar = Command::new("tar");
        tar.arg("-C").arg(&stage).arg("-czf").arg(&archive);
        // Both layouts krew accepts: ./kubectl-pacto and kubectl-pacto.
        if n % 2 == 0 {
            tar.arg(".");
        } else {
            tar.args(
                std::fs::read_dir(&stage)
                    .unwrap()
                    .map(|e| e.unwrap().file_name()),
            );
        }
        let st = tar.status().expect("tar");
        assert!(st.success(), "tar failed for {name}");
        out.insert(name, sha256_hex(&std::fs::read(&archive).unwrap()));
    }
    out
}

fn run_update(version: &str, dir: &Path, manifest: &Path) -> Run {
    let mut cmd = Command::new("bash");
    cmd.arg(update_script()).arg(version).arg(dir).arg(manifest);
    run(&mut cmd)
}

#[test]
fn update_script_writes_the_archive_hashes() {
    assert_eq!(
        sha256_hex(b""),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(
        sha256_hex(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    );
    assert_eq!(
        sha256_hex(&[b'a'; 1_000_000]),
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
    );
    assert_eq!(
        sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    need_bash_and_tar();
    let tmp = tempfile::tempdir().unwrap();
    let original = std::fs::read_to_string(manifest_path()).unwrap();
    let manifest = tmp.path().join("pacto.yaml");
    std::fs::write(&manifest, &original).unwrap();
    let old = env!("CARGO_PKG_VERSION");
    let new = "9.8.7-rc.1";
    let dir = tmp.path().join("dist");
    let hashes = fake_release(tmp.path(), &dir, new, true);

    let r = run_update(&format!("v{new}"), &dir, &manifest);
    r.assert_code(0);
    let updated = std::fs::read_to_string(&manifest).unwrap();

    // Each platform now carries the hash of its own archive.
    let m = Manifest::parse("pacto.yaml", &updated).unwrap();
    assert_eq!(m.platforms().len(), TARGETS.len());
    for p in m.platforms() {
        let uri = p["uri"].as_str().unwrap();
        let file = uri.rsplit('/').next().unwrap();
        assert_eq!(
            p["sha256"].as_str(),
            hashes.get(file).map(String::as_str),
            "sha256 of {file} in\n{updated}"
        );
    }
    // And nothing else changed: the version, the uris' version and the placeholder comment.
    let mut shas = m
        .platforms()
        .iter()
        .map(|p| p["sha256"].as_str().unwrap().to_string());
    let expected: String = original
        .lines()
        .filter(|l| !l.starts_with(PLACEHOLDER_COMMENT))
        .map(|l| {
            let t = l.trim_start();
            let line = if l.starts_with("  version:") {
                format!("  version: v{new}")
            } else if t.starts_with("uri:") {
                l.replace(&format!("v{old}"), &format!("v{new}"))
            } else if t.starts_with("sha256:") {
                format!(
                    "{}sha256: \"{}\"",
                    &l[..l.len() - t.len()],
                    shas.next().unwrap()
                )
            } else {
                l.to_string()
            };
            line + "\n"
        })
        .collect();
    assert_eq!(updated, expected);
    // The result still passes every rule, for the new version.
    let found = violations("pacto.yaml", &updated, new);
    assert!(
        found.is_empty(),
        "after update-sha256.sh:\n{}",
        found.join("\n")
    );

    // Running it again changes nothing.
    run_update(new, &dir, &manifest).assert_code(0);
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), updated);
}

#[test]
fn update_script_refuses_incomplete_releases() {
    need_bash_and_tar();
    let tmp = tempfile::tempdir().unwrap();
    let original = std::fs::read_to_string(manifest_path()).unwrap();
    let manifest = tmp.path().join("pacto.yaml");
    std::fs::write(&manifest, &original).unwrap();
    let v = env!("CARGO_PKG_VERSION");

    // No LICENSE in the archives: validate-krew-manifest would reject the install.
    let no_license = tmp.path().join("no-license");
    fake_release(tmp.path(), &no_license, v, false);
    let r = run_update(v, &no_license, &manifest);
    assert_ne!(r.code, Some(0), "{r:?}");
    assert!(r.stderr.contains("no LICENSE"), "{}", r.stderr);

    // One archive missing.
    let partial = tmp.path().join("partial");
    let hashes = fake_release(tmp.path(), &partial, v, true);
    std::fs::remove_file(partial.join(hashes.keys().last().unwrap())).unwrap();
    let r = run_update(v, &partial, &manifest);
    assert_ne!(r.code, Some(0), "{r:?}");
    assert!(r.stderr.contains("missing archive"), "{}", r.stderr);

    // Not a semantic version.
    let r = run_update("1.2", &partial, &manifest);
    assert_ne!(r.code, Some(0), "{r:?}");
    assert!(r.stderr.contains("not a semantic version"), "{}", r.stderr);

    // Nothing was written by any failed run.
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), original);
}
