//! The commands, one folder each, as kubectl keeps `pkg/cmd/<command>`: each checks its flags
//! into options and runs over the I/O layer (`crate::io`). A command uses the layer and the
//! library, never another command (a test of the plugin's imports holds that).

pub(crate) mod completion;
pub(crate) mod doctor;
pub(crate) mod explain;
pub(crate) mod get;
pub(crate) mod health;
pub(crate) mod man;
pub(crate) mod reconcile;
pub(crate) mod snippet;
pub(crate) mod version;
pub(crate) mod wait;
