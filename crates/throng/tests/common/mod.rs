//! What the CLI tests share: running the built binary, reading the pictures it writes and
//! comparing them. Each test file uses a part of it, hence the `dead_code` allowance.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use throng_render::image::{self, AnimationDecoder, Frame, Rgba, RgbaImage};

/// Runs the throng binary with `args` and `env` added to the environment; panics only when it
/// cannot be started, so a test can look at any exit status.
pub fn run_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_throng"));
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    match cmd.output() {
        Ok(o) => o,
        Err(e) => panic!("cannot run the throng binary: {e}"),
    }
}

/// Runs the throng binary with `args`; panics only when it cannot be started.
pub fn run(args: &[&str]) -> Output {
    run_env(args, &[])
}

/// Runs throng; panics with its stderr when it fails; returns the output.
fn succeed(args: &[&str]) -> Output {
    let out = run(args);
    assert!(
        out.status.success(),
        "throng {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Runs throng; panics with its stderr when it fails; returns stdout.
pub fn ok(args: &[&str]) -> String {
    String::from_utf8_lossy(&succeed(args).stdout).into_owned()
}

/// Runs throng; panics with its stderr when it fails; returns stderr (where the commands
/// that write files report what they did).
pub fn ok_stderr(args: &[&str]) -> String {
    String::from_utf8_lossy(&succeed(args).stderr).into_owned()
}

/// Runs throng (a `--json` command); panics with its stderr when it fails or with its stdout
/// when that is not JSON.
pub fn ok_json(args: &[&str]) -> serde_json::Value {
    let out = succeed(args);
    match serde_json::from_slice(&out.stdout) {
        Ok(v) => v,
        Err(e) => panic!(
            "throng {args:?} did not print JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        ),
    }
}

/// The folder `name` in the test target dir, created if missing; pictures and bakes a test
/// writes go there for people to look at.
pub fn out_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    if let Err(e) = std::fs::create_dir_all(&d) {
        panic!("creating {}: {e}", d.display());
    }
    d
}

/// A path as a command-line argument.
pub fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// The asset `name` from the test asset folder as a command-line argument, or `None` (skip)
/// when the folder is missing outside CI.
pub fn asset_arg(name: &str) -> Option<String> {
    throng_testdata::asset(name).map(|p| s(&p))
}

/// The asset `name` from the test asset folder, or `None` (skip) when the folder or a GPU
/// adapter is missing outside CI; the adapter is looked for only once the asset is there.
pub fn asset_and_gpu(name: &str) -> Option<PathBuf> {
    let path = throng_testdata::asset(name)?;
    throng_render::device::test_gpu()?;
    Some(path)
}

pub fn read_png(path: &Path) -> RgbaImage {
    match image::open(path) {
        Ok(i) => i.to_rgba8(),
        Err(e) => panic!("reading {}: {e}", path.display()),
    }
}

/// Every frame of the GIF at `path`.
pub fn read_gif(path: &Path) -> Vec<Frame> {
    let file = match std::fs::File::open(path) {
        Ok(f) => std::io::BufReader::new(f),
        Err(e) => panic!("opening {}: {e}", path.display()),
    };
    match image::codecs::gif::GifDecoder::new(file).and_then(|d| d.into_frames().collect_frames()) {
        Ok(f) => f,
        Err(e) => panic!("decoding {}: {e}", path.display()),
    }
}

/// Writes `img` as `name` in the test target dir, for people to look at.
pub fn save(img: &RgbaImage, name: &str) {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    if let Err(e) = img.save(&path) {
        panic!("writing {}: {e}", path.display());
    }
}

/// Whether R, G or B of two pixels differ by more than `tol` levels (of 255).
pub fn differs(a: &Rgba<u8>, b: &Rgba<u8>, tol: i32) -> bool {
    (0..3).any(|c| (a[c] as i32 - b[c] as i32).abs() > tol)
}

/// How many pixels of two same-sized images differ by more than `tol` levels.
pub fn differing(a: &RgbaImage, b: &RgbaImage, tol: i32) -> usize {
    a.pixels()
        .zip(b.pixels())
        .filter(|(p, q)| differs(p, q, tol))
        .count()
}

/// Red where the two images differ by more than `tol`, else the first image dimmed to grey.
pub fn diff_image(a: &RgbaImage, b: &RgbaImage, tol: i32) -> RgbaImage {
    RgbaImage::from_fn(a.width(), a.height(), |x, y| {
        let (pa, pb) = (a.get_pixel(x, y), b.get_pixel(x, y));
        if differs(pa, pb, tol) {
            Rgba([255, 0, 0, 255])
        } else {
            let l = ((pa[0] as u32 + pa[1] as u32 + pa[2] as u32) / 6) as u8;
            Rgba([l, l, l, 255])
        }
    })
}
