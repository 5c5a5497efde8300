//! The `waymark` binary: parse the command line, run it, exit with its code.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    waymark::keep_freed_memory();
    let cli = waymark::cli::Cli::parse();
    waymark::cmd::main(cli).into()
}
