//! The files a command reads beyond its objects: the one object a flag names (an argocd-cm, a
//! Kustomization or HelmRelease).

use anyhow::{bail, Result};
use pacto_gates::object::{self, K8sObject};
use std::path::Path;

/// Reads the one object a file must hold (an argocd-cm, a Kustomization or HelmRelease).
/// Errors: the file's own, a directory, or another count of objects (`expected one <what>,
/// found N objects`).
pub(crate) fn read_one(path: &Path, what: &str) -> Result<K8sObject> {
    if path.is_dir() {
        bail!(
            "{}: a directory; give the file that holds the {what}",
            path.display()
        );
    }
    let objs = object::read_paths(std::slice::from_ref(&path.to_path_buf()))?;
    match <[K8sObject; 1]>::try_from(objs) {
        Ok([o]) => Ok(o),
        Err(objs) => bail!(
            "{}: expected one {what}, found {} objects",
            path.display(),
            objs.len()
        ),
    }
}
