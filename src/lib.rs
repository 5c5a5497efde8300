//! waymark runs journeys through a web application in a real headless Chromium.
//!
//! A journey — a Rhai script or the tool calls of an agent — addresses controls by
//! **anchor**, a stable name for what a control *is*. Every journey kind calls the same
//! [`tools`] gateway, which acts through the [`browser`] module (the only code that speaks
//! CDP), reads the screen in one in-page round trip, infers the state and returns a
//! round-trip result. [`bench`](mod@bench) measures that gateway on real pages against floors taken
//! in the same run, and gates CI on the ratios.

#![deny(missing_docs)]

pub mod anchor;
pub use screen::audit;
pub mod bench;
pub mod browser;
pub mod check;
pub mod cli;
pub mod cmd;
mod collector;
/// The in-page collector's wire form, for benches and tests: not a stable interface.
#[doc(hidden)]
pub mod wire {
    pub use crate::collector::{encode_full, parse_full};
}
pub mod control;
pub mod demo;
pub mod exit;
pub mod journey;
pub mod layout;
mod logging;
mod mcp;
pub mod protocol;
pub mod read;
pub mod registry;
pub mod replay;
pub mod report;
pub mod run;
pub mod screen;
mod serve;
pub mod session;
pub mod settings;
pub mod signals;
pub mod snapshot;
pub mod suggest;
pub mod suite;
pub mod tools;
pub use tools::trace;
pub mod transcript;

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
