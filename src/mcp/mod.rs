//! `waymark mcp`: the tools over the Model Context Protocol (stdio), for agent-driven
//! journeys. The agent gets the same gateway as a script — the same gates, the same round
//! trips — with consent asked of the person through the client where it can show a
//! question, and every call recorded for replay when asked to.

mod elicit;
mod render;
mod server;
mod stdio;
mod tools;

pub(crate) use server::{DEFAULT_BUDGET, Server};
pub(crate) use stdio::checked as checked_stdio;
