//! The canary: a file next to the asset folder, named by every escaping URI form (buffers and
//! images, with and without an explicit asset root), must never be opened, and with `strace`
//! not even looked up.
//!
//! Two independent checks, Linux only:
//! - **inotify** (always runs; no root, no extra tool, works in containers): a watch on the
//!   canary's folder records every open and read of anything in it by any process. After all
//!   imports the queue must be empty; then the test opens the canary itself and the queue must
//!   not be, which proves the watch works. A FIFO canary was not chosen: the importer opens with
//!   `O_NONBLOCK`, so a FIFO would not block even if it were opened, and a hang is a poor
//!   failure.
//! - **strace** (runs when `strace` works here, skipped with a message otherwise): this test
//!   binary runs the same imports under `strace -f -e trace=%file` and no system call may name
//!   the canary, except as the text a `readlink` of a link inside the folder returns. A control
//!   file opened at the end proves the trace sees that folder.

#![cfg(target_os = "linux")]

mod common;
mod escape;

use std::path::Path;

use escape::{buffer_doc, image_doc, Fixture, CANARY_LEN};
use throng_gltf::{ImportErrorKind as K, ImportOptions};

/// Imports every escaping form as a buffer, a used image and an unused image, by default and
/// with the asset folder as explicit root; each must be refused.
fn import_every_form(f: &Fixture) -> usize {
    let explicit = ImportOptions::with_asset_root(&f.assets);
    let mut refused = 0;
    for (uri, problem) in f.escaping_uris() {
        for opts in [ImportOptions::default(), explicit.clone()] {
            for (name, doc) in [
                ("buffer.gltf", buffer_doc(&uri, CANARY_LEN as u64)),
                ("image.gltf", image_doc(&uri, true)),
            ] {
                let path = f.assets.join(name);
                std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
                match throng_gltf::import_with(&path, &opts) {
                    Err(e) => match &e.kind {
                        K::UnsafeUri { problem: p, .. } if *p == problem => refused += 1,
                        _ => panic!("{uri}: wrong error {e}"),
                    },
                    Ok(_) => panic!("{uri} was imported"),
                }
            }
            let path = f.assets.join("unused.gltf");
            std::fs::write(&path, serde_json::to_vec(&image_doc(&uri, false)).unwrap()).unwrap();
            let m = throng_gltf::import_with(&path, &opts).expect("unused image");
            assert!(m.warnings[0].contains(&problem.to_string()), "{uri}");
            refused += 1;
        }
    }
    refused
}

/// An inotify watch on one folder (inotify(7)): counts open and access events in it.
struct Watch {
    fd: i32,
}

impl Watch {
    fn new(dir: &Path) -> Watch {
        // SAFETY: plain system calls on a descriptor this struct owns; the path is a valid
        // NUL-terminated string.
        unsafe {
            let fd = libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC);
            assert!(
                fd >= 0,
                "inotify_init1: {}",
                std::io::Error::last_os_error()
            );
            let c = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()).unwrap();
            let wd = libc::inotify_add_watch(fd, c.as_ptr(), libc::IN_OPEN | libc::IN_ACCESS);
            assert!(
                wd >= 0,
                "inotify_add_watch: {}",
                std::io::Error::last_os_error()
            );
            Watch { fd }
        }
    }

    /// Events queued since the last call.
    fn events(&self) -> usize {
        let mut buf = vec![0u8; 64 * 1024];
        let mut count = 0;
        loop {
            // SAFETY: reads into a buffer of the given length; a non-blocking descriptor.
            let n = unsafe { libc::read(self.fd, buf.as_mut_ptr().cast(), buf.len()) };
            if n <= 0 {
                return count;
            }
            // struct inotify_event: wd, mask, cookie, len (4 bytes each), then `len` bytes.
            let mut at = 0;
            while at + 16 <= n as usize {
                let len = u32::from_ne_bytes(buf[at + 12..at + 16].try_into().unwrap());
                at += 16 + len as usize;
                count += 1;
            }
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        // SAFETY: closes the descriptor this struct owns, once.
        unsafe { libc::close(self.fd) };
    }
}

#[test]
fn the_canary_is_never_opened() {
    let f = Fixture::new();
    let watch = Watch::new(&f.outside);
    let refused = import_every_form(&f);
    assert_eq!(refused, f.escaping_uris().len() * 6);
    assert_eq!(
        watch.events(),
        0,
        "something in the canary's folder was opened"
    );
    // The control: opening the canary is seen.
    assert_eq!(std::fs::read(&f.canary).unwrap().len(), CANARY_LEN);
    assert!(watch.events() > 0, "inotify saw no open of the canary");
}

const HELPER_ENV: &str = "THRONG_CANARY_FIXTURE";

/// Run only by [`the_canary_is_never_looked_up`], under strace, in a fixture it built.
#[test]
#[ignore = "run by the_canary_is_never_looked_up under strace"]
fn canary_helper() {
    let Some(base) = std::env::var_os(HELPER_ENV) else {
        return;
    };
    let f = Fixture::existing(Path::new(&base));
    import_every_form(&f);
    std::fs::read(f.outside.join("control.bin")).unwrap();
}

fn strace_works() -> bool {
    std::process::Command::new("strace")
        .args(["-f", "-o", "/dev/null", "true"])
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn the_canary_is_never_looked_up() {
    if !strace_works() {
        eprintln!("skipping: strace is not installed or cannot trace here");
        return;
    }
    let f = Fixture::new();
    std::fs::write(f.outside.join("control.bin"), b"control").unwrap();
    let log = f.base().join("strace.log");
    let out = std::process::Command::new("strace")
        .args(["-f", "-qq", "-s", "4096", "-e", "trace=%file", "-o"])
        .arg(&log)
        .arg(std::env::current_exe().unwrap())
        .args(["--exact", "canary_helper", "--ignored", "--test-threads=1"])
        .env(HELPER_ENV, f.base())
        .output()
        .expect("run strace");
    assert!(
        out.status.success(),
        "helper failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&log).unwrap();
    let canary = f.canary.display().to_string();
    let touched: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(&canary) || l.contains("outside/canary.bin\""))
        // readlink of a link inside the folder prints its target: that is not a lookup.
        .filter(|l| {
            let call = l.split_whitespace().nth(1).unwrap_or("");
            !call.starts_with("readlink")
        })
        .collect();
    assert!(
        touched.is_empty(),
        "the canary was looked up:\n{}",
        touched.join("\n")
    );
    // The trace saw the imports and the control file in the canary's folder.
    assert!(
        text.contains("assets/buffer.gltf"),
        "no import in the trace"
    );
    assert!(
        text.contains("outside/control.bin"),
        "the trace missed the control"
    );
}
