//! The runtime's harness without the command line:
//! `cargo run --release -p throng-bench --example runtime -- [cpu|gpu] [instances] [changing] [layers]`
use throng_bench::runtime::{run, BenchConfig, BenchMode};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let mode = if a.get(1).map(|s| s.as_str()) == Some("gpu") {
        BenchMode::Gpu
    } else {
        BenchMode::Cpu
    };
    let cfg = BenchConfig {
        mode,
        instances: a.get(2).and_then(|s| s.parse().ok()).unwrap_or(1_000_000),
        changing: a.get(3).and_then(|s| s.parse().ok()).unwrap_or(0.0),
        layers: a.get(4).and_then(|s| s.parse().ok()).unwrap_or(2),
        ..BenchConfig::default()
    };
    let r = run(&cfg, &[]);
    println!("{}", serde_json::to_string_pretty(&r).unwrap_or_default());
}
