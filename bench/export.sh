#!/usr/bin/env bash
# Times `throng export` of a folder of baked characters in every format against `throng bake` of
# the same folder (docs/export.md "Cost"). Usage: bench/export.sh SOURCES_DIR WORK_DIR
#   phase bake:    throng bake SOURCES_DIR -o WORK_DIR/baked   (the default budgeted bake)
#   phase export:  every WORK_DIR/baked/*.glb in every format into WORK_DIR/export/
# Run each phase under farm-bench (or time) with THRONG pointing at a release build:
#   bench/export.sh SRC WORK bake ; bench/export.sh SRC WORK export
set -euo pipefail
src=$1 work=$2 phase=${3:-both}
throng=${THRONG:-target/release/throng}
if [ "$phase" = bake ] || [ "$phase" = both ]; then
  rm -rf "$work/baked"; mkdir -p "$work"
  "$throng" bake "$src" -o "$work/baked" >/dev/null
fi
if [ "$phase" = export ] || [ "$phase" = both ]; then
  rm -rf "$work/export"; mkdir -p "$work/export"
  # One export a process, two at a time (the folder bake uses every core too).
  for f in "$work"/baked/*.glb; do
    for fmt in openvat ue-a2t-vertex ue-a2t-bone godot bone-texture-json unity; do
      printf '%s\0%s\0%s\0' "$f" "$fmt" "$work/export/$(basename "$f" .glb)-$fmt"
    done
  done | xargs -0 -n 3 -P "${JOBS:-$(nproc)}" sh -c '"$0" export "$1" --format "$2" -o "$3" >/dev/null' "$throng"
fi
