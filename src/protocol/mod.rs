//! The protocol every surface speaks, as types: a failure's code and attribution, a tool's
//! error, a journey's outcome, the classes of action, a cookie, the source of a tab's
//! screenshots. A leaf: it depends on no other module of the crate, so every module may
//! depend on it.

mod class;
mod cookie;
mod error;
mod outcome;
mod quote;
mod screenshot;

pub use class::{ActionClass, UnknownClass};
pub use cookie::{Cookie, SameSite};
pub use error::{Attribution, ErrorCode, ToolError};
pub use outcome::{ExpectedFailure, Failure, FailureCode, FailureKind, Outcome};
pub(crate) use outcome::{run_failure, shown as shown_message, syntax_failure};
pub use quote::{MESSAGE_CHARS, QUOTED_CHARS, Quoted, cut, cut_mut, cut_to, quoted};
pub use screenshot::ScreenshotSource;
