//! The process's exit codes: one enum, so every command maps its outcome the same way and
//! the README's table (checked by a test against [`Exit::table`]) cannot drift from the code.

/// How a `waymark` command ended (docs/design.md's contract).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Exit {
    /// Every journey passed (or the command did what it was asked).
    Passed = 0,
    /// A journey failed (or a check did: a read's audit, a bench's baseline or ceilings).
    Failed = 1,
    /// Bad input: usage, configuration, a script error.
    BadInput = 2,
    /// Environment: the browser or the app could not be reached.
    Environment = 3,
    /// Interrupted by Ctrl-C (the shell's 128 + SIGINT).
    Interrupted = 130,
    /// Stopped by SIGTERM (the shell's 128 + SIGTERM).
    Terminated = 143,
}

impl Exit {
    /// Every code, in order.
    pub const ALL: [Exit; 6] = [
        Exit::Passed,
        Exit::Failed,
        Exit::BadInput,
        Exit::Environment,
        Exit::Interrupted,
        Exit::Terminated,
    ];

    /// The number the process exits with.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// What the code means, as the README says it.
    pub fn meaning(self) -> &'static str {
        match self {
            Exit::Passed => "every journey passed",
            Exit::Failed => {
                "a journey failed (a tool error it did not catch, a failed `expect`, a deadline or limit)"
            }
            Exit::BadInput => {
                "bad input: usage, an invalid `anchors.yaml`, a script that does not parse or is wrong at run time (unknown function, type mismatch)"
            }
            Exit::Environment => {
                "environment: no browser found or it could not start, the app could not be reached"
            }
            Exit::Interrupted => {
                "interrupted (Ctrl-C, SIGINT): the journeys stop, the reports of those that finished are written, the browsers are closed"
            }
            Exit::Terminated => {
                "stopped by SIGTERM: as on Ctrl-C (a second signal, or 10 s without an end, kills the browsers at once)"
            }
        }
    }

    /// The README's table of exit codes, a row per code.
    pub fn table() -> String {
        let mut out = String::from("| code | meaning |\n|---|---|\n");
        for exit in Exit::ALL {
            out.push_str(&format!("| {} | {} |\n", exit.code(), exit.meaning()));
        }
        out
    }
}

impl From<Exit> for u8 {
    fn from(exit: Exit) -> u8 {
        exit.code()
    }
}

impl From<Exit> for std::process::ExitCode {
    fn from(exit: Exit) -> std::process::ExitCode {
        std::process::ExitCode::from(exit.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_readme_lists_every_exit_code_as_the_code_says() {
        let readme = include_str!("../README.md");
        assert!(
            readme.contains(&Exit::table()),
            "README.md's exit code table differs from `Exit::table()`:\n{}",
            Exit::table()
        );
    }

    #[test]
    fn codes_are_the_documented_numbers() {
        let codes: Vec<u8> = Exit::ALL.iter().map(|e| e.code()).collect();
        assert_eq!(codes, [0, 1, 2, 3, 130, 143]);
    }
}
