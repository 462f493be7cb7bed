//! sitefeed turns any web page into a feed: it watches the page, finds the links added
//! since its last look, and serves them as RSS 2.0, Atom 1.0 and JSON Feed items.
//!
//! The pipeline of one check ([`check`]): fetch ([`fetch`]) → raw fingerprint →
//! link extraction ([`extract`]) → link fingerprint → improved-LCS diff ([`diff`]) →
//! selective extraction → one atomic commit ([`store`]). The [`schedule`] decides when
//! each watch is checked; [`server`] and [`cli`] are the two front doors.

// Private items are documented too (`cargo doc --document-private-items`), so the
// module docs may link to them.
#![allow(rustdoc::private_intra_doc_links)]

pub mod alloc;
pub(crate) mod analysis;
pub mod app;
pub mod check;
pub mod cli;
pub mod config;
pub(crate) mod cpu;
pub mod crawl;
pub(crate) mod daemon;
pub mod diff;
pub(crate) mod dto;
pub mod entries;
pub mod error;
#[cfg(feature = "eval")]
pub(crate) mod eval;
pub mod extract;
pub mod fetch;
pub mod fulltext;
pub(crate) mod hash;
pub(crate) mod metrics;
pub mod model;
pub(crate) mod offline;
pub(crate) mod remote;
pub mod render;
pub mod runner;
pub mod schedule;
pub mod server;
pub mod session;
pub mod state;
pub mod store;

pub use app::App;
pub use config::Config;
pub use error::Error;
