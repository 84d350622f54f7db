#!/usr/bin/env bash
# Runs every fuzz target (or the ones named) for SECONDS seconds each, one libFuzzer process
# at a time at low priority, then prints executions, seconds and findings per target.
#
#   fuzz/run.sh SECONDS [TARGET...]
#
# Seeds come from seeds.sh (run first when fuzz/corpus is missing). Findings land in
# fuzz/artifacts/TARGET/; each one is to become a regression test in the crate's tests.
# FUZZ_SANITIZER=address builds with ASan (default none: the targets are safe Rust, and without
# it they run about twice as fast); overflow checks and debug assertions are always on.
set -euo pipefail
cd "$(dirname "$0")"
secs="${1:?usage: fuzz/run.sh SECONDS [TARGET...]}"
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(gltf_glb gltf_json gltf_uri fbx baked_reader bake_settings cli_args runtime_commands graph_crowd web_player)
sanitizer="${FUZZ_SANITIZER:-none}"
export CARGO_TARGET_DIR="${FUZZ_TARGET_DIR:-$PWD/target}"
[ -d corpus/gltf_glb ] || ./seeds.sh
mkdir -p logs

dict() {
  case "$1" in
    gltf_uri) echo dicts/uri.dict ;;
    gltf_*) echo dicts/gltf.dict ;;
    fbx) echo dicts/fbx.dict ;;
    baked_reader) echo dicts/baked.dict ;;
    bake_settings) echo dicts/settings.dict ;;
    cli_args) echo dicts/cli.dict ;;
    graph_reader) echo dicts/graph.dict ;;
    # call sequences: bytes are opcodes and arguments, no tokens to suggest
    *) ;;
  esac
}

for t in "${targets[@]}"; do
  nice -n 10 cargo +nightly fuzz build -a -s "$sanitizer" "$t"
done

summary=()
failed=0
for t in "${targets[@]}"; do
  mkdir -p "artifacts/$t"
  before=$(find "artifacts/$t" -type f | wc -l)
  rm -f fuzz-0.log
  start=$(date +%s)
  # -jobs=1 -workers=1: one worker process, its output in fuzz-0.log. 2 GiB and 10 s per input
  # are the limits: anything above is a finding (an unbounded allocation or a hang).
  d="$(dict "$t")"
  nice -n 10 cargo +nightly fuzz run -a -s "$sanitizer" "$t" -- \
    -max_total_time="$secs" -jobs=1 -workers=1 ${d:+-dict="$d"} \
    -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 -print_final_stats=1 || true
  end=$(date +%s)
  mv fuzz-0.log "logs/$t.log"
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "logs/$t.log" | grep -o '[0-9]*$' | tail -1)
  # libFuzzer's own count of seconds (the wall time above includes the build).
  fuzzed=$(grep -o 'Done [0-9]* runs in [0-9]* second' "logs/$t.log" | grep -o '[0-9]* second' | grep -o '[0-9]*' | tail -1)
  corpus=$(find "corpus/$t" -type f | wc -l)
  found=$(( $(find "artifacts/$t" -type f | wc -l) - before ))
  [ "$found" -eq 0 ] || failed=1
  summary+=("$(printf '%-14s %12s executions in %5s s fuzzing (%5s s wall)  corpus %5s  new findings %s' \
    "$t" "${runs:-?}" "${fuzzed:-?}" "$((end - start))" "$corpus" "$found")")
done
printf '%s\n' "${summary[@]}" | tee logs/summary.txt
exit "$failed"
