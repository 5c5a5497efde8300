//! waymark runs journeys through a web application in a real headless Chromium.
//!
//! A journey — a Rhai script or the tool calls of an agent — addresses controls by
//! **anchor**, a stable name for what a control *is*. Every journey kind calls the same
//! [`tools`] gateway, which acts through the [`browser`] module (the only code that speaks
//! CDP), reads the screen in one in-page round trip, infers the state and returns a
//! round-trip result. [`bench`] measures that gateway on real pages against floors taken
//! in the same run, and gates CI on the ratios.

#![deny(missing_docs)]

pub mod anchor;
pub mod audit;
pub mod bench;
pub mod browser;
pub mod cli;
mod collector;
/// The in-page collector's wire form, for benches and tests: not a stable interface.
#[doc(hidden)]
pub mod wire {
    pub use crate::collector::{encode_full, parse_full};
}
pub mod control;
pub mod demo;
pub mod journey;
mod mcp;
pub mod read;
pub mod registry;
mod report;
pub mod run;
pub mod screen;
pub mod snapshot;
pub mod tools;
pub mod trace;
pub mod transcript;
