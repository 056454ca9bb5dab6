//! The one I/O layer the commands stand on: the connection to a cluster and the runtime that
//! drives it ([`connect`]), the files a command reads ([`files`]), which objects a listing
//! shows ([`select`]), where the gates come from ([`gates`]), what delivery reads
//! ([`delivery`]), the live objects an Application or a Kustomization names ([`live`]), following a watch ([`watch`]), and what reaches stdout and stderr
//! ([`output`]). Commands (`crate::cmd`) use this layer and never each other; nothing here
//! uses a command. The rules these reads feed are the library's.

pub(crate) mod connect;
pub(crate) mod contexts;
pub(crate) mod delivery;
pub(crate) mod files;
pub(crate) mod gates;
pub(crate) mod live;
pub(crate) mod output;
pub(crate) mod select;
pub(crate) mod watch;
