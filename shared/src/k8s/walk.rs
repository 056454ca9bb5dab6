//! The directory walk behind `-f DIR` and the suite runners: every directory below a root once
//! (whatever links lead to it, so a link loop ends), files and directories sorted by path.

use std::path::{Path, PathBuf};

/// What a walk found.
#[derive(Debug, Default)]
pub struct Walk {
    /// Every directory visited, the root first if it is one, then sorted by path.
    pub dirs: Vec<PathBuf>,
    /// Every regular file (links followed), sorted by path; FIFOs, sockets and devices are left
    /// out (reading one could block for ever or never end).
    pub files: Vec<PathBuf>,
    /// Directories or entries that could not be read, in the order met.
    pub errors: Vec<(PathBuf, std::io::Error)>,
}

/// Walks `root` recursively. Unreadable directories are recorded in [`Walk::errors`] and
/// skipped; the caller decides whether that is fatal.
pub fn walk(root: &Path) -> Walk {
    let mut out = Walk::default();
    let mut stack = vec![root.to_path_buf()];
    let mut seen = std::collections::HashSet::new();
    while let Some(d) = stack.pop() {
        if !seen.insert(std::fs::canonicalize(&d).unwrap_or_else(|_| d.clone())) {
            continue;
        }
        let entries = match std::fs::read_dir(&d) {
            Ok(e) => e,
            Err(e) => {
                out.errors.push((d, e));
                continue;
            }
        };
        out.dirs.push(d.clone());
        for e in entries {
            match e {
                Ok(e) => {
                    let p = e.path();
                    if p.is_dir() {
                        stack.push(p);
                    } else if p.is_file() {
                        out.files.push(p);
                    }
                }
                Err(e) => out.errors.push((d.clone(), e)),
            }
        }
    }
    out.dirs.sort();
    out.files.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_directory_once_even_through_a_link_loop() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/b/x.yaml"), "").unwrap();
        std::fs::write(root.join("top.json"), "").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(root, root.join("a/loop")).unwrap();
        let w = walk(root);
        assert!(w.errors.is_empty());
        assert_eq!(
            w.files,
            vec![root.join("a/b/x.yaml"), root.join("top.json")]
        );
        assert_eq!(
            w.dirs,
            vec![root.to_path_buf(), root.join("a"), root.join("a/b")]
        );
        #[cfg(unix)]
        {
            let fifo = root.join("a/pipe.yaml");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            if made.is_ok_and(|s| s.success()) {
                assert!(
                    !walk(root).files.contains(&fifo),
                    "a FIFO is not a file to read"
                );
            } else {
                panic!("mkfifo is needed for this test");
            }
        }
        let missing = walk(&root.join("nope"));
        assert_eq!(missing.errors.len(), 1);
        assert!(missing.dirs.is_empty() && missing.files.is_empty());
    }
}
