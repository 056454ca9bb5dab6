//! A Helm release as Helm's Secret storage driver keeps it, read as the flux CLI reads it for
//! `flux tree` (flux2 `cmd/flux/tree_kustomization.go` `getHelmReleaseInventory`, after Helm's
//! `pkg/storage/driver/util.go` `decodeRelease`): the Secret `sh.helm.release.v1.NAME.vN` in the
//! storage namespace, whose `data.release` is base64 (the API's encoding of Secret data) of the
//! base64 text of the release JSON, gzip-compressed when it starts with gzip's magic bytes; the
//! JSON's `manifest` holds the release's objects as a YAML stream. Pure: values in, text out.

use base64::Engine as _;
use serde_json::Value;
use std::io::Read as _;

/// gzip's magic bytes and deflate method, as Helm tests for them.
const GZIP: [u8; 3] = [0x1f, 0x8b, 0x08];

/// The name of the storage Secret of release `name` at `version`.
pub fn secret_name(name: &str, version: u64) -> String {
    format!("sh.helm.release.v1.{name}.v{version}")
}

/// The `manifest` of the release the storage Secret `secret` holds; `max_bytes` bounds what the
/// release data unpacks to (a gzip bomb is refused, not inflated). Errors: not a Secret, no
/// `data.release`, not base64 at either level, a gzip stream that is broken or unpacks beyond
/// `max_bytes`, not a JSON object, a `manifest` that is not a string.
pub fn manifest(secret: &Value, max_bytes: u64) -> Result<String, String> {
    if secret.get("kind").and_then(Value::as_str) != Some("Secret") {
        return Err("the Helm storage object is not a Secret".into());
    }
    let Some(data) = secret.pointer("/data/release") else {
        return Err("data.release: absent (not a Helm release Secret)".into());
    };
    let Some(text) = data.as_str() else {
        return Err(format!(
            "data.release: expected a string, found {}",
            crate::object::json_type(data)
        ));
    };
    let b64 = base64::engine::general_purpose::STANDARD;
    let outer = b64
        .decode(text)
        .map_err(|e| format!("data.release: not base64: {e}"))?;
    let mut bytes = b64
        .decode(&outer)
        .map_err(|e| format!("data.release: the release is not base64 text: {e}"))?;
    if bytes.starts_with(&GZIP) {
        let mut out = Vec::new();
        // Go's gzip reader reads concatenated members as one stream, and refuses what follows
        // that is not one.
        flate2::read::MultiGzDecoder::new(bytes.as_slice())
            .take(max_bytes.saturating_add(1))
            .read_to_end(&mut out)
            .map_err(|e| format!("data.release: the release's gzip stream is broken: {e}"))?;
        if out.len() as u64 > max_bytes {
            return Err(format!(
                "data.release: the release unpacks to more than {max_bytes} bytes (--max-input-bytes)"
            ));
        }
        bytes = out;
    }
    // Only `manifest` is kept: the rest of the release (its chart, values, hooks) is read past
    // without being built, so a small Secret cannot unpack into a large value.
    #[derive(serde::Deserialize)]
    struct Stored {
        #[serde(default)]
        manifest: Option<serde_json::Value>,
    }
    let release: Stored = serde_json::from_slice(&bytes)
        .map_err(|e| format!("data.release: the release is not a JSON object: {e}"))?;
    match release.manifest {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(m)) => Ok(m),
        Some(other) => Err(format!(
            "data.release: manifest: expected a string, found {}",
            crate::object::json_type(&other)
        )),
    }
}

/// The most objects one release manifest may hold (as many as `--max-list-items` lets one list
/// bring by default): a release of more is refused with this bound named.
pub const MAX_RELEASE_OBJECTS: usize = 100_000;

/// The kinds of the API server's built-in groups that are cluster-scoped (not namespaced), by
/// (group, kind): what a release object without `metadata.namespace` keeps when the cluster's
/// discovery is not at hand (Kubernetes' own resource scopes, `kubectl api-resources
/// --namespaced=false` on a v1.32 server).
pub const CLUSTER_SCOPED: &[(&str, &str)] = &[
    ("", "Namespace"),
    ("", "Node"),
    ("", "PersistentVolume"),
    ("", "ComponentStatus"),
    (
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
    ),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
    (
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicyBinding",
    ),
    ("apiextensions.k8s.io", "CustomResourceDefinition"),
    ("apiregistration.k8s.io", "APIService"),
    ("certificates.k8s.io", "CertificateSigningRequest"),
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"),
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"),
    ("networking.k8s.io", "IngressClass"),
    ("networking.k8s.io", "IPAddress"),
    ("networking.k8s.io", "ServiceCIDR"),
    ("node.k8s.io", "RuntimeClass"),
    ("rbac.authorization.k8s.io", "ClusterRole"),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
    ("scheduling.k8s.io", "PriorityClass"),
    ("storage.k8s.io", "CSIDriver"),
    ("storage.k8s.io", "CSINode"),
    ("storage.k8s.io", "StorageClass"),
    ("storage.k8s.io", "VolumeAttachment"),
];

/// The release's objects of `manifest` (a YAML stream; empty documents skipped), each with the
/// release namespace `namespace` set where it has none and `namespaced(group, kind)` says its
/// kind is namespaced, as `getHelmReleaseInventory` sets it. Errors: a document that does not
/// parse or is not a mapping with a string `kind`, `apiVersion` and `metadata.name`, named by
/// its index in the manifest.
pub fn objects(
    manifest: &str,
    namespace: &str,
    namespaced: impl Fn(&str, &str) -> bool,
) -> Result<Vec<Value>, String> {
    // One document at a time, so that the bound stops the reading, not the parsed whole.
    let mut split = crate::k8s::yaml::Splitter::new(manifest.as_bytes(), u64::MAX);
    let mut out = Vec::new();
    let mut i = 0usize;
    loop {
        let chunk = split
            .next_chunk()
            .map_err(|e| format!("the release manifest: {e}"))?;
        let Some(chunk) = chunk else { break };
        i += 1;
        let doc = crate::k8s::yaml::parse_chunk(&chunk)
            .map_err(|e| format!("the release manifest, document {i}: {e}"))?;
        let Some(mut doc) = doc.map(crate::object::kube_numbers) else {
            continue;
        };
        let i = i - 1;
        if out.len() == MAX_RELEASE_OBJECTS {
            return Err(format!(
                "the release manifest holds more than {MAX_RELEASE_OBJECTS} objects (a fixed bound)"
            ));
        }
        let at = |m: &str| format!("the release manifest, document {}: {m}", i + 1);
        if !doc.is_object() {
            return Err(at(&format!(
                "expected a Kubernetes object (a mapping), found {}",
                crate::object::json_type(&doc)
            )));
        }
        for p in ["/apiVersion", "/kind", "/metadata/name"] {
            if !doc.pointer(p).is_some_and(Value::is_string) {
                return Err(at(&format!(
                    "{}: expected a string",
                    &p[1..].replace('/', ".")
                )));
            }
        }
        let group = crate::k8s::gvk_of(&doc).group.to_string();
        let kind = crate::k8s::gvk::str_at(&doc, "/kind").to_string();
        let has_ns = doc
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .is_some_and(|n| !n.is_empty());
        if !has_ns && namespaced(&group, &kind) {
            doc["metadata"]["namespace"] = Value::from(namespace);
        }
        out.push(doc);
    }
    Ok(out)
}
