//! The process's standard output, which a reader may close before waymark is done:
//! `waymark run | head -1`, or a pager quit early. `println!` panics then ("failed printing
//! to stdout: Broken pipe") and the run ends with a backtrace and its browsers unclosed;
//! `outln!` and `out!` drop what the reader no longer wants and the command goes on to
//! its end and its exit code, as it does when nothing reads its output at all.

/// `println!`, but a closed or failing standard output is not a panic: the line is dropped.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let _ = ::std::writeln!(::std::io::stdout().lock(), $($arg)*);
    }};
}

/// `print!`, but a closed or failing standard output is not a panic: the text is dropped.
macro_rules! out {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let mut stdout = ::std::io::stdout().lock();
        let _ = ::std::write!(stdout, $($arg)*);
        let _ = stdout.flush();
    }};
}

pub(crate) use {out, outln};
