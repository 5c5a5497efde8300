//! Why a session (and so a command) could not start: each cause keeps its own error type,
//! and says which documented exit code it ends the process with.

use crate::browser::BrowserError;
use crate::control::GuardrailError;
use crate::control::cookies::CookieError;
use crate::demo::DemoError;
use crate::exit::Exit;
use crate::journey::DiscoverError;
use crate::registry::RegistryError;
use crate::suite::ReportError;
use crate::tools::trace::TraceError;

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The registry is missing or invalid.
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// Journeys could not be found or read.
    #[error(transparent)]
    Discover(#[from] DiscoverError),
    /// No journeys were found.
    #[error("no journeys found under {0} (journeys are `*.rhai` files)")]
    NoJourneys(String),
    /// The guardrail file cannot be used.
    #[error(transparent)]
    Guardrail(#[from] GuardrailError),
    /// The profile cannot be loaded.
    #[error(transparent)]
    Profile(#[from] CookieError),
    /// The control page could not be served.
    #[error("cannot serve the control page: {0}")]
    ControlPage(std::io::Error),
    /// `--base-url` is not a usable URL.
    #[error("invalid `--base-url` `{url}`: {why}")]
    BaseUrl {
        /// As given.
        url: String,
        /// Why.
        why: String,
    },
    /// The app at `--base-url` did not answer.
    #[error("the app at `{url}` could not be reached: {why}")]
    Unreachable {
        /// As given.
        url: String,
        /// Why.
        why: String,
    },
    /// The browser could not be found or started.
    #[error(transparent)]
    Browser(#[from] BrowserError),
    /// The embedded demo app could not start.
    #[error(transparent)]
    Demo(#[from] DemoError),
    /// The trace folder cannot be created.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// A transcript cannot be written (`mcp --record`) or read (an agent journey).
    #[error(transparent)]
    Transcript(#[from] crate::transcript::TranscriptError),
    /// A `--report` file cannot be written.
    #[error(transparent)]
    Report(#[from] ReportError),
    /// The HAR file `--har replay` names cannot be read.
    #[error("--har: {0}")]
    Har(String),
    /// The MCP session could not start or broke down.
    #[error("the MCP session failed: {0}")]
    Mcp(String),
}

impl RunError {
    /// The documented exit code for this error.
    pub fn exit(&self) -> Exit {
        match self {
            RunError::Registry(_)
            | RunError::Discover(_)
            | RunError::NoJourneys(_)
            | RunError::BaseUrl { .. }
            | RunError::Trace(_)
            | RunError::Report(_)
            | RunError::Transcript(_)
            | RunError::Guardrail(_)
            | RunError::Har(_) => Exit::BadInput,
            RunError::Unreachable { .. }
            | RunError::Browser(_)
            | RunError::Demo(_)
            | RunError::ControlPage(_)
            | RunError::Mcp(_) => Exit::Environment,
            RunError::Profile(e) => e.exit(),
        }
    }
}
