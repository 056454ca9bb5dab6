//! Time as kstatus reads and writes it: `Unstructured.GetCreationTimestamp` through Go's
//! `time.Parse(time.RFC3339, ..)` (metav1.Time.UnmarshalQueryParameter), and
//! `time.Now().UTC().Format(time.RFC3339)` for the condition times of `status.go` `Augment`
//! (both from [`crate::k8s::time`]).

use serde_json::Value;

use super::unstructured::get_nested_string;
use crate::k8s::time::{days_from_civil, parse_go_rfc3339};

pub(super) use crate::k8s::time::format_rfc3339_utc;

pub(super) const NANOS_PER_SECOND: i128 = 1_000_000_000;

/// `Unstructured.GetCreationTimestamp` as nanoseconds since the Unix epoch: a missing, empty,
/// `null` or unparsable value is Go's zero time (0001-01-01T00:00:00Z).
pub(super) fn creation_timestamp_nanos(obj: &Value) -> i128 {
    let text = get_nested_string(obj, &["metadata", "creationTimestamp"]);
    let zero = i128::from(days_from_civil(1, 1, 1)) * 86_400 * NANOS_PER_SECOND;
    if text.is_empty() || text == "null" {
        return zero;
    }
    parse_go_rfc3339(&text).unwrap_or(zero)
}
