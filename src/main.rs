//! The `waymark` binary: parse the command line, run it, exit with its code.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = waymark::cli::Cli::parse();
    ExitCode::from(waymark::cli::main(cli))
}
