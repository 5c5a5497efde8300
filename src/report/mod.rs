//! What a run reports: the console as it goes ([`Reporter`]): its notes, a line per
//! journey (flaky apart), a line per retried attempt, the summary.

mod console;

pub use console::{Reporter, duration, summary_line};
