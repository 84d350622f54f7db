//! The command line's parsing and value parsers (`--fps`, `--camera`, `--size`, `--lod`, …):
//! the input is one argument per line after `throng`. Parsing only: nothing runs.
#![no_main]

use clap::Parser;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // a bounded argument list: clap's work grows with it, and the parsers see each value
    let args = std::iter::once("throng").chain(text.split('\n').take(64));
    let _ = throng::Cli::try_parse_from(args);
});
