//! Damaged real files give an error or a model, never a panic: deterministic byte mutations
//! of a small GLB (JSON and binary chunks) and of a .gltf with data-URI buffers.

use std::panic::{catch_unwind, AssertUnwindSafe};

/// Small deterministic generator (64-bit LCG, Knuth's MMIX constants).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

fn mutate_and_import(name: &str, rounds: usize, seed: u64) {
    let Some(path) = throng_testdata::asset(name) else {
        return;
    };
    let original = std::fs::read(&path).unwrap();
    let mut rng = Lcg(seed);
    let (mut ok, mut err) = (0, 0);
    for round in 0..rounds {
        let mut bytes = original.clone();
        // 1 to 4 byte changes; half of the rounds also cut the file short.
        for _ in 0..1 + rng.next() % 4 {
            let at = (rng.next() as usize) % bytes.len();
            bytes[at] = match rng.next() % 4 {
                0 => b'9',
                1 => b'"',
                2 => 0xFF,
                _ => rng.next() as u8,
            };
        }
        if round % 2 == 1 {
            let keep = (rng.next() as usize) % bytes.len();
            bytes.truncate(keep.max(1));
        }
        let result = catch_unwind(AssertUnwindSafe(|| {
            throng_gltf::import_slice(&bytes, path.parent(), name)
        }));
        match result {
            Ok(Ok(_)) => ok += 1,
            Ok(Err(e)) => {
                assert!(e.to_string().starts_with(name), "{e}");
                err += 1
            }
            Err(_) => panic!("{name}: round {round} panicked"),
        }
    }
    assert_eq!(ok + err, rounds);
}

#[test]
fn mutated_glb_never_panics() {
    mutate_and_import("RiggedSimple.glb", 600, 1);
}

#[test]
fn mutated_gltf_never_panics() {
    mutate_and_import("SimpleSkin.gltf", 600, 2);
}

#[test]
fn mutated_quantized_gltf_never_panics() {
    mutate_and_import("quantized/AnimatedMorphCube-Quantized.gltf", 300, 3);
}
