//! The `throng` command line (see the library, `src/lib.rs`, for the commands and exit codes).

use clap::Parser;
use std::process::ExitCode;

/// Mesa's Vulkan device-select layer looks for a Wayland display on every device creation and
/// prints an error when XDG_RUNTIME_DIR is unset, as on headless machines, where it has no
/// display to choose a GPU for. Its own switch turns it off there; set before any thread starts.
fn quiet_device_select() {
    if std::env::var_os("XDG_RUNTIME_DIR").is_none()
        && std::env::var_os("NODEVICE_SELECT").is_none()
    {
        std::env::set_var("NODEVICE_SELECT", "1");
    }
}

/// Whether a panic is `println!`/`eprintln!` failing because the reader of the pipe went away
/// (`throng inspect … | head`). Rust ignores SIGPIPE, so the write returns EPIPE and the print
/// macros panic with this message (std's wording: "failed printing to stdout: <io error>").
fn is_broken_pipe(message: &str) -> bool {
    let printing = message.starts_with("failed printing to stdout")
        || message.starts_with("failed printing to stderr");
    printing && message.ends_with(&broken_pipe_text())
}

/// How an EPIPE write error prints on this platform (`Broken pipe (os error 32)` on Unix).
fn broken_pipe_text() -> String {
    #[cfg(unix)]
    const EPIPE: i32 = 32; // the same on Linux, macOS and the BSDs
    #[cfg(windows)]
    const EPIPE: i32 = 232; // ERROR_NO_DATA: "The pipe is being closed."
    #[cfg(not(any(unix, windows)))]
    const EPIPE: i32 = 32;
    std::io::Error::from_raw_os_error(EPIPE).to_string()
}

/// A closed output pipe ends the command quietly with success, as the output's reader chose to
/// stop reading (the way `head` expects its writer to behave); every other panic keeps the
/// default report. Covers every command, whatever prints.
fn quiet_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied());
        if message.is_some_and(is_broken_pipe) {
            std::process::exit(0);
        }
        default(info);
    }));
}

fn main() -> ExitCode {
    quiet_device_select();
    quiet_broken_pipe();
    throng::run(throng::Cli::parse())
}
