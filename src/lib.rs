//! waymark runs journeys through a web application in a real headless Chromium.
//!
//! A journey — a Rhai script or the tool calls of an agent — addresses controls by
//! **anchor**, a stable name for what a control *is*. Every journey kind calls the same
//! [`tools`] gateway, which acts through the [`browser`] module (the only code that speaks
//! CDP), reads the screen in one in-page round trip, infers the state and returns a
//! round-trip result. docs/design.md tells the design; ARCHITECTURE.md maps the modules.
//!
//! # What is public, and why
//!
//! waymark is a command first: `main.rs` parses the [`cli`] and hands it to [`cmd::main`].
//! The library's public surface is what a program around waymark needs beside the command,
//! and what waymark's files and answers are made of:
//!
//! - **The contracts**: [`protocol`] (error codes, their attribution, a journey's outcome,
//!   action classes), [`anchor`] (anchor ids and references), [`exit`] (the exit codes),
//!   [`registry`] (`anchors.yaml`), the inferred layer of a screen read in [`screen`], and the
//!   trace's records in [`trace`].
//! - **The gateway**, to drive a tab from Rust as a journey does: [`session`] opens a tab
//!   for the [`settings`] a command resolved, and its [`tools::Gateway`] takes one
//!   [`tools::Call`] at a time (the one list of verbs, `tools.schema.json`) through the gates;
//!   [`browser`] is the tab it acts on.
//!
//! Everything else (the runner, the reports, the demo app, the MCP server, the control
//! page, snapshots, shards, the bench) is the command's own and `pub(crate)`: it may change
//! with any release. The crate's own tests, benches and fuzz targets see it through the
//! `internals` feature, which makes those modules public (and hidden from the docs); nothing
//! else should enable it.

#![deny(missing_docs)]
// Without `internals` the command's own modules are crate-private: items only the tests
// use are dead there, and a public type may mention a crate-private one (a `Session`'s
// hub). Builds with the tests (`cargo test`, `cargo clippy --all-targets`) see it all.
#![cfg_attr(
    not(feature = "internals"),
    allow(dead_code, unused_imports, private_interfaces, private_bounds)
)]

/// A module of the command's own: public to the crate's tests, benches and fuzz targets
/// (the `internals` feature), crate-private otherwise.
macro_rules! internal {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[cfg(feature = "internals")]
        #[doc(hidden)]
        pub mod $name;
        $(#[$meta])*
        #[cfg(not(feature = "internals"))]
        pub(crate) mod $name;
    };
}

pub mod anchor;
pub use screen::audit;
pub mod browser;
pub mod cli;
pub mod cmd;
pub mod exit;
pub mod protocol;
pub mod registry;
pub mod screen;
pub mod session;
pub mod settings;
pub mod tools;
pub use tools::trace;

internal!(bench);
internal!(check);
mod collector;
internal!(control);
internal!(demo);
internal!(journey);
pub mod layout;
mod logging;
mod mcp;
mod out;
internal!(read);
internal!(replay);
internal!(report);
internal!(run);
mod serve;
internal!(show);
internal!(signals);
internal!(snapshot);
internal!(suggest);
internal!(suite);
internal!(transcript);

/// The in-page collector's wire form, for benches and tests: not a stable interface.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod wire {
    pub use crate::collector::{encode_full, parse_full};
}

/// Keeps the memory a read frees for the next read instead of handing it back to the
/// kernel. Called first thing by the binary (and by the benches, which measure what it
/// does).
///
/// A read of a dense screen allocates large blocks (the reply, its records, the inferred
/// controls: megabytes each on 50,000 controls) and frees them before the next read.
/// glibc serves a block that large from a fresh mapping, or trims the heap once it is
/// freed, so every read paid for its pages again in page faults: 60 % of a 50,000-control
/// parse + infer (29.8 ms, 12.0 ms with this; `cargo bench --bench pure -- parse_infer`),
/// and a quarter of a warm read of a 10,000-control page. With the mapping and trim
/// thresholds raised, freed blocks stay in the heap. The price: the process keeps its
/// high-water mark resident until it exits, and that mark is higher (`waymark read` of
/// 50,000 controls: 30 → 34 MB at the default cut, 44 → 53 MB gathering all of them).
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt(3) only sets allocator parameters, under the allocator's own lock;
    // both values are within the ranges glibc accepts (the mapping threshold's ceiling is
    // 32 MiB on 64-bit targets).
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
    }
}
