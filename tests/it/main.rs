//! waymark's integration tests: the real demo app driven through the real tools in a real
//! headless Chromium, one module per user-visible capability.

mod fixtures;
mod harness;

mod accname;
mod actionability;
mod architecture;
mod audit;
mod bounded;
mod chaos;
mod check;
mod cli;
mod control_page;
mod cookies;
mod corpus;
mod dense;
mod dialogs;
mod errors;
mod fill;
mod frames;
mod gates;
mod gestures;
mod hostile;
mod injection;
mod invoke;
mod layers;
mod layouts;
mod matchers;
mod mcp;
mod mcp_input;
mod navigate;
mod page_frame;
mod press;
mod properties;
mod read;
mod remote;
mod secrets;
mod shapes;
mod signals;
mod snapshots;
mod state;
mod suites;
mod tabs;
mod targets;
mod trace;
mod waits;
