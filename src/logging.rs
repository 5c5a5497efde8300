//! Diagnostic logging: the `tracing` events of waymark and its crates (a browser message
//! that could not be parsed, the demo app's server stopping) on stderr, when asked for.
//!
//! Asked for by `RUST_LOG` (`EnvFilter` directives) or by `-v` on the command line (`-v`
//! info, `-vv` debug, `-vvv` trace), whose level beats a bare level in `RUST_LOG` (flags
//! beat the environment) and leaves its per-target directives alone. Asked for by
//! neither, no subscriber is installed at all, so the output is exactly what it is
//! without logging.

use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::LevelFilter;

/// Installs the stderr subscriber for `verbose` (how many `-v` were given) and `RUST_LOG`;
/// does nothing when neither asks for logging. Call it once, before any work.
pub fn init(verbose: u8) {
    let from_env = std::env::var_os(EnvFilter::DEFAULT_ENV).is_some_and(|v| !v.is_empty());
    let level = level(verbose);
    if level.is_none() && !from_env {
        return;
    }
    // Silent where `RUST_LOG` holds no valid directive, as without a subscriber.
    let mut filter = EnvFilter::builder()
        .with_default_directive(LevelFilter::OFF.into())
        .from_env_lossy();
    if let Some(level) = level {
        filter = filter.add_directive(level.into());
        // At trace level chromiumoxide logs every CDP message whole, and a fill's message
        // holds the text typed, secrets included: `-vvv` stops at its debug events. Asking
        // for them by name in `RUST_LOG` (`chromiumoxide=trace`) still shows them.
        if level == LevelFilter::TRACE
            && !names_chromiumoxide()
            && let Ok(directive) = "chromiumoxide=debug".parse()
        {
            filter = filter.add_directive(directive);
        }
    }
    // Only fails when a subscriber is already installed, which then keeps its place.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

/// Whether `RUST_LOG` names chromiumoxide's events itself.
fn names_chromiumoxide() -> bool {
    std::env::var(EnvFilter::DEFAULT_ENV).is_ok_and(|v| v.contains("chromiumoxide"))
}

/// The level `-v` given `verbose` times asks for, if any.
fn level(verbose: u8) -> Option<LevelFilter> {
    match verbose {
        0 => None,
        1 => Some(LevelFilter::INFO),
        2 => Some(LevelFilter::DEBUG),
        _ => Some(LevelFilter::TRACE),
    }
}

#[cfg(test)]
mod tests {
    use tracing_subscriber::filter::LevelFilter;

    #[test]
    fn each_v_raises_the_level_and_none_asks_for_nothing() {
        assert_eq!(super::level(0), None);
        assert_eq!(super::level(1), Some(LevelFilter::INFO));
        assert_eq!(super::level(2), Some(LevelFilter::DEBUG));
        assert_eq!(super::level(3), Some(LevelFilter::TRACE));
        assert_eq!(super::level(9), Some(LevelFilter::TRACE));
    }

    #[test]
    fn init_asked_for_nothing_installs_nothing() {
        if std::env::var_os("RUST_LOG").is_none() {
            super::init(0);
            assert!(!tracing::dispatcher::has_been_set());
        }
    }
}
