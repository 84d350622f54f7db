#!/usr/bin/env bash
# Builds everything web/index.html and web/three.html need, into web/: pkg/ (throng_web.wasm,
# its JavaScript glue and TypeScript declarations, from wasm-bindgen), its copy in the npm
# package web/packages/throng/pkg/ (`cd web/packages/throng && npm pack` then makes the
# tarball), fox.glb (the built-in fox, baked) and locomotion.json (its animation graph). three.html also needs three.js from npm:
# `cd web && npm install three@0.187.0`.
# Needs: the rustup target wasm32-unknown-unknown, wasm-bindgen-cli of the version in
# Cargo.lock (docs/web.md says how to install both); wasm-opt (binaryen) is used when found.
#   web/build.sh            then: cd web && python3 -m http.server 8000
# Environment: CARGO_TARGET_DIR (where cargo builds; default target/), THRONG (a built
# `throng` command line to bake with; default: built here).
set -euo pipefail
cd "$(dirname "$0")/.."
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  echo "build.sh: the Rust target wasm32-unknown-unknown is missing: rustup target add wasm32-unknown-unknown" >&2
  exit 1
fi
want=$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/^version = "\(.*\)"/\1/p')
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  echo "build.sh: wasm-bindgen-cli $want is needed (Cargo.lock's wasm-bindgen), found '${have:-none}': cargo install wasm-bindgen-cli --version $want" >&2
  exit 1
fi

cargo build --release --target wasm32-unknown-unknown -p throng-web
wasm="$target_dir/wasm32-unknown-unknown/release/throng_web.wasm"
rm -rf web/pkg.tmp
wasm-bindgen --target web --out-dir web/pkg.tmp "$wasm"
# The size step: binaryen's wasm-opt -Oz, only with binaryen 117 or newer. Debian 12's 108 shrinks
# the module to 5.5 MB (2.07 MB gzip) but writes an externref table that fails to instantiate
# ("WebAssembly.Table.set(): Argument 1 is invalid"); newer versions were not available to test.
# A machine without binaryen skips the step (under pipefail a missing wasm-opt in the version
# pipeline would end the script with status 127 and no word).
opt_version=""
if command -v wasm-opt >/dev/null 2>&1; then
  opt_version=$(wasm-opt --version 2>/dev/null | sed -n 's/^wasm-opt version \([0-9]*\).*/\1/p' || true)
fi
if [ -z "$opt_version" ]; then
  echo "build.sh: wasm-opt (binaryen 117 or newer) not found; the module is left unshrunk" >&2
elif [ "$opt_version" -ge 117 ]; then
  wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue \
    -o web/pkg.tmp/throng_web_bg.opt.wasm web/pkg.tmp/throng_web_bg.wasm
  mv web/pkg.tmp/throng_web_bg.opt.wasm web/pkg.tmp/throng_web_bg.wasm
else
  echo "build.sh: wasm-opt $opt_version is too old to shrink this module safely (117 or newer); skipped" >&2
fi
rm -rf web/pkg && mv web/pkg.tmp web/pkg
# The npm package (web/packages/throng: `throng`, `throng/three`, `throng/babylon`) carries the same wasm.
rm -rf web/packages/throng/pkg && cp -r web/pkg web/packages/throng/pkg

throng="${THRONG:-}"
if [ -z "$throng" ]; then
  cargo build --release -p throng
  throng="$target_dir/release/throng"
fi
# The source is named as the page's file is, so the asset's messages name fox.glb.
src=$(mktemp -d)
"$throng" demo-asset -o "$src/fox.glb" >/dev/null
# LODs let a large crowd draw far foxes with fewer triangles, and the far tier draws the
# farthest as one card each (on WebGPU, and on WebGL2 through the renderer's downlevel mode).
"$throng" bake "$src/fox.glb" --lod 0.5,0.25,0.1 --far-tier -o web/fox.glb >/dev/null
rm -rf "$src"
# The fox's locomotion graph, for index.html?graph=locomotion.json (docs/web.md "Graph crowds").
cp crates/throng-graph/graphs/demo-fox-locomotion.json web/locomotion.json
raw=$(stat -c %s web/pkg/throng_web_bg.wasm)
gz=$(gzip -9 -c web/pkg/throng_web_bg.wasm | wc -c)
echo "web/pkg/throng_web_bg.wasm: $raw bytes ($gz gzip -9); web/fox.glb: $(stat -c %s web/fox.glb) bytes"
