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

fn main() -> ExitCode {
    quiet_device_select();
    throng::run(throng::Cli::parse())
}
