#!/usr/bin/env bash
# bench/gpu.sh OUT_DIR [--dry-run] [--fast]
#
# Figures from a real GPU in one unattended run: builds throng in release (or uses $THRONG_BIN),
# checks that wgpu picks a hardware adapter, then runs, each under a time limit:
#   bench render (texture, VAT, reference paths at 1, 100, 1,000 and 100,000 instances),
#   bench render --field 100,000 and 1,000,000 (culling + LOD against no culling),
#   bench render --lods at 10,000 and 1,000,000 (the far tier's cards, every instance in view),
#   bench runtime at 1M instances, CPU- and GPU-timed, and the demo with 100,000 instances,
# and writes OUT_DIR/gpu-bench.json and OUT_DIR/gpu-bench.md (`throng bench summary`) beside
# each step's own output. Budget: 8 minutes including the build (THRONG_BENCH_BUDGET_S); each
# step's limit is cut to what is left.
#
#   --dry-run  allow a software adapter (lavapipe) and use small counts: proves the script end to
#              end on a machine without a GPU.
#   --fast     with --dry-run: the smallest counts, for tests (about a minute on 2 cores).
#
# Every step's status and time go to OUT_DIR/steps.tsv; a failed or timed-out step is recorded
# and the run goes on, so one slow step never costs the others. Exit code: 0 when every step
# passed, 1 otherwise, 2 for bad arguments or a CPU adapter without --dry-run.
set -uo pipefail

usage() { echo "usage: bench/gpu.sh OUT_DIR [--dry-run] [--fast]" >&2; exit 2; }
[ $# -ge 1 ] || usage
OUT="$1"; shift
DRY=0; FAST=0
for a in "$@"; do
  case "$a" in
    --dry-run) DRY=1 ;;
    --fast) FAST=1 ;;
    *) usage ;;
  esac
done
[ "$FAST" = 0 ] || [ "$DRY" = 1 ] || { echo "--fast goes with --dry-run" >&2; exit 2; }

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$OUT" || exit 2
OUT="$(cd "$OUT" && pwd)"
: > "$OUT/steps.tsv"
export WGPU_DEBUG=0
[ -n "${XDG_RUNTIME_DIR:-}" ] || export NODEVICE_SELECT=1
FAILED=0
# The whole run fits 8 minutes: every step's limit is cut to what is left of it.
BUDGET=${THRONG_BENCH_BUDGET_S:-480}
START=$(date +%s)

# step NAME SECONDS COMMAND...: runs COMMAND under a time limit (and within the budget), stdout
# to OUT/NAME.out, stderr to OUT/NAME.err, and logs name, status and seconds.
step() {
  local name="$1" limit="$2"; shift 2
  local left=$(( BUDGET - ($(date +%s) - START) ))
  if [ "$left" -lt 5 ]; then
    printf '%s\t%s\t%s\n' "$name" "skipped (time budget spent)" 0 >> "$OUT/steps.tsv"
    FAILED=1
    return 0
  fi
  [ "$limit" -le "$left" ] || limit=$left
  local t0 t1 rc
  t0=$(date +%s.%N)
  timeout --kill-after=10 "$limit" "$@" > "$OUT/$name.out" 2> "$OUT/$name.err"
  rc=$?
  t1=$(date +%s.%N)
  local secs; secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  local status="ok"
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then status="timed out after ${limit}s"; FAILED=1
  elif [ "$rc" != 0 ]; then status="failed (exit $rc)"; FAILED=1; fi
  printf '%s\t%s\t%s\n' "$name" "$status" "$secs" >> "$OUT/steps.tsv"
  echo "bench/gpu.sh: $name: $status, ${secs} s" >&2
  return 0
}

# The binary: given, or built here (what is already built is reused).
if [ -n "${THRONG_BIN:-}" ]; then
  BIN="$THRONG_BIN"
  printf 'build\tskipped (THRONG_BIN)\t0\n' >> "$OUT/steps.tsv"
else
  step build 300 cargo build --release -p throng --manifest-path "$ROOT/Cargo.toml"
  BIN="$ROOT/target/release/throng"
fi
[ -x "$BIN" ] || { echo "bench/gpu.sh: no throng binary at $BIN (see $OUT/build.err)" >&2; exit 1; }

# The adapter wgpu picks: a one-instance bench frame reports it.
if ! "$BIN" bench render --instances 1 --frames 1 --size 64x64 --json > "$OUT/adapter.json" 2> "$OUT/adapter.err"; then
  echo "bench/gpu.sh: no GPU device could be created:" >&2
  cat "$OUT/adapter.err" >&2
  exit 1
fi
ADAPTER=$(sed -n 's/.*"adapter": *"\([^"]*\)".*/\1/p' "$OUT/adapter.json" | head -n 1)
echo "adapter: $ADAPTER" >&2
case "$ADAPTER" in
  *", Cpu,"*)
    if [ "$DRY" = 0 ]; then
      echo "bench/gpu.sh: wgpu picked a CPU adapter ($ADAPTER); no figures from it (use --dry-run to try the script)" >&2
      exit 2
    fi ;;
esac

# Counts and per-step limits (seconds).
if [ "$FAST" = 1 ]; then
  PATHS="1,4"; SIZE=64x64; FRAMES=1; FIELDS="500"; FIELD_CAP=200; FARS="100,1000"; RT=20000; DEMO=20; LIMIT=60
elif [ "$DRY" = 1 ]; then
  PATHS="1,100,1000"; SIZE=256x256; FRAMES=1; FIELDS="10000"; FIELD_CAP=1000; FARS="1000,10000"; RT=200000; DEMO=200; LIMIT=240
else
  PATHS="1,100,1000,100000"; SIZE=1280x720; FRAMES=10; FIELDS="100000 1000000"; FIELD_CAP=10000; FARS="10000,1000000"; RT=1000000; DEMO=100000; LIMIT=60
fi
{
  echo "Date: $(date -u +%Y-%m-%d)"
  echo
  echo "Mode: $( [ "$DRY" = 1 ] && echo "dry run (software adapter allowed, small counts)" || echo "full" )"
  command -v nvidia-smi >/dev/null 2>&1 && echo && echo "Driver: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
} > "$OUT/meta.txt"

step render "$LIMIT" "$BIN" bench render --json --instances "$PATHS" --size "$SIZE" --frames "$FRAMES"
cp "$OUT/render.out" "$OUT/render.json" 2>/dev/null
for n in $FIELDS; do
  step "field-$n" "$LIMIT" "$BIN" bench render --json --field "$n" --field-off-cap "$FIELD_CAP" --field-frames "$FRAMES" --size "$SIZE"
  cp "$OUT/field-$n.out" "$OUT/field-$n.json" 2>/dev/null
done
# The far tier (docs/design.md §5 "Far tier"): the built-in fox with LODs and cards, the command's
# own framing (every instance in view), the texture path (a million palettes pass one buffer).
step far "$LIMIT" "$BIN" bench render --json --instances "$FARS" --paths texture --lods 0.5,0.25,0.1 --size "$SIZE" --frames "$FRAMES"
cp "$OUT/far.out" "$OUT/far.json" 2>/dev/null
step runtime-cpu "$LIMIT" "$BIN" bench runtime --json --instances "$RT" --mode cpu
cp "$OUT/runtime-cpu.out" "$OUT/runtime-cpu.json" 2>/dev/null
step runtime-gpu "$LIMIT" "$BIN" bench runtime --json --instances "$RT" --mode gpu --changing 0.01
cp "$OUT/runtime-gpu.out" "$OUT/runtime-gpu.json" 2>/dev/null
step demo "$LIMIT" "$BIN" demo --instances "$DEMO" --out-dir "$OUT/demo" --frames 6 --size "$SIZE"

"$BIN" bench summary "$OUT" >&2 || FAILED=1
exit "$FAILED"
