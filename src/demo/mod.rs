//! The embedded demo application: "Acme Operations", a small multi-screen business app
//! served over HTTP on a free `127.0.0.1` port. It is the default target of every journey
//! and every integration test, so its screens are both the product's showcase and its test
//! bench. Every interactive control carries `data-anchor`, repeated ones `data-anchor-key`,
//! and each sits inside one `data-anchor-region`; `anchors.yaml` at the repository root is
//! its registry. It is served in one of two [`Layout`]s: `classic`, and a `redesign` that
//! changes what a redesign changes (see [`layout`](crate::layout)'s docs).

mod chrome;
mod claims;
mod dense;
mod dispatch;
mod home;
mod orders;
mod pricing;
mod redesign;
mod returns;
mod seed;
mod server;
mod state;
mod widgets;

pub use crate::layout::Layout;
pub use dense::{dense_matched, dense_page};
pub use server::{DemoApp, DemoError};
