#!/usr/bin/env bash
# Builds the seed corpora of every fuzz target under fuzz/corpus/ from the shared assets
# (THRONG_ASSETS, default ../shared/assets beside the repository) and from files baked from
# them. The corpora are build products: never committed, rebuilt by this script.
#
# Needs python3 (embed.py) and the throng binary (THRONG_BIN, else built once in release).
set -euo pipefail
cd "$(dirname "$0")"
repo="$(cd .. && pwd)"
assets="${THRONG_ASSETS:-$repo/../shared/assets}"
target="${CARGO_TARGET_DIR:-$repo/target}"
throng="${THRONG_BIN:-$target/release/throng}"
# Larger seeds make every execution slower without reaching more code.
max_seed_bytes="${MAX_SEED_BYTES:-131072}"

[ -d "$assets" ] || { echo "assets not found at $assets (set THRONG_ASSETS)" >&2; exit 1; }
if [ ! -x "$throng" ]; then
  (cd "$repo" && cargo build --release -p throng)
fi
mkdir -p corpus/gltf_glb corpus/gltf_json corpus/fbx corpus/baked_reader corpus/bake_settings corpus/cli_args
small() { [ "$(stat -c %s "$1")" -le "$max_seed_bytes" ]; }
name() { echo "${1#"$assets"/}" | tr '/' '_'; }

# GLB importer: every small .glb as it is.
while IFS= read -r f; do
  small "$f" && cp "$f" "corpus/gltf_glb/$(name "$f")"
done < <(find "$assets" -name '*.glb' | sort)

# JSON importer: every small .gltf and .glb, rewritten with data: URIs only.
while IFS= read -r f; do
  small "$f" || continue
  python3 embed.py "$f" "corpus/gltf_json/$(name "$f").gltf" 2>/dev/null ||
    echo "skipped $(name "$f"): cannot embed" >&2
done < <(find "$assets" \( -name '*.gltf' -o -name '*.glb' \) -not -path '*draco*' | sort)

# FBX importer: every small .fbx (binary and ASCII) as it is.
while IFS= read -r f; do
  small "$f" && cp "$f" "corpus/fbx/$(name "$f")"
done < <(find "$assets" -iname '*.fbx' | sort)

# URI confinement: the escaping forms of crates/throng-gltf/tests/escape and names that exist.
mkdir -p corpus/gltf_uri
i=0
for u in ../outside/canary.bin %2e%2e/outside/canary.bin '%2E%2E%2Foutside%2Fcanary.bin' \
  '..%5Coutside%5Ccanary.bin' '..\outside\canary.bin' sub/../../outside/canary.bin \
  /tmp/outside/canary.bin file:///etc/passwd //host/share C:/x.bin /dev/zero %2Fdev%2Fzero \
  out-link abs-link dir-link/canary.bin zero chain in-link sub/up pipe sub small.bin \
  'small.bin?x#y' '%73mall.bin' ./sub/./small.bin; do
  printf '%s' "$u" > "corpus/gltf_uri/seed-$((i++))"
done

# Baked-file reader: a few characters in every encoding and with every optional part.
bake() {
  local src="$1" out="$2"; shift 2
  "$throng" bake "$assets/$src" -o "corpus/baked_reader/$out.glb" --no-verify "$@" >/dev/null
}
for enc in mat4-f32 mat3x4-f32 mat3x4-f16 quat-f32 quat-snorm16; do
  bake RiggedSimple.glb "RiggedSimple-$enc" --encoding "$enc"
done
bake SimpleSkin.gltf SimpleSkin-vat --vat f32 --lod 0.5
bake SimpleSkin.gltf SimpleSkin-vat16 --vat unorm16 --max-texture-size 4
bake BoxAnimated.glb BoxAnimated-anchors --anchors auto --vat f16
bake RiggedFigure.glb RiggedFigure-root --root-motion extract --fps 10 --lod 0.5,0.25
bake InterpolationTest.glb InterpolationTest --fps auto
bake kenney/character.glb kenney-character --encoding mat3x4-f16 --fps 12
for f in corpus/baked_reader/*.glb; do
  small "$f" || rm "$f"
done

# Settings JSON: the documented example and edge cases of every field.
python3 - "$repo/docs/settings.md" corpus/bake_settings <<'PY'
import re, sys
doc, out = sys.argv[1], sys.argv[2]
blocks = re.findall(r"```json\n(.*?)```", open(doc).read(), re.S)
extra = [
    '{}',
    '{"clips": {"Walk": {"loop": "once", "fps": 24.5, "events": []}}}',
    '{"clips": {"": {"events": [{"time": 0, "name": ""}, {"time": 1e-9, "name": "x"}]}}}',
    '{"anchors": "auto", "rootMotion": "none"}',
    '{"anchors": [], "rootMotion": "extract"}',
    '{"motionRoot": "Hips"}',
    '{"clips": {"a": {"loop": "ping-pong"}, "b": {"loop": "clamp"}}, "anchors": ["n#2", "node7"]}',
]
for i, text in enumerate(blocks + extra):
    open("%s/seed-%02d.json" % (out, i), "w").write(text)
PY

# Command lines: one argument per line, every value parser with good and edge values.
i=0
while IFS= read -r line; do
  printf '%s' "$line" | tr ' ' '\n' > "corpus/cli_args/seed-$(printf %02d $i)"
  i=$((i + 1))
done <<'ARGS'
bake in.gltf -o out.glb --fps 30 --encoding quat-snorm16 --influences 8 --lod 0.5,0.25
bake in.gltf -o out.glb --fps auto --max-error 1e-3 --vat unorm16 --once Walk --event Walk:0.5:step
bake dir -o outdir --clip-fps Walk:60 --loop-mode Run:ping-pong --max-texture-size 4096
render a.glb b.glb --instances 100 --camera 0,2,-5:0,1,0:35 --size 640x480 --lod-bias 1.5
render a.glb --lod-influences 4,2,1 --debug weights --debug-joint 3 --frames 4 -o x.gif
render a.glb --timing gpu --blend Run --blend-weight 0.3 --stagger --layout random
sample in.gltf --clip 0 --time -1e30 --skinning dq --json
verify in.gltf --encoding all --fps 1e-9 --json
bench render --field 100000 --field-lods 0.5,0.25,0.1 --field-frames 3
bench runtime --instances 1000000 --mode gpu --json
inspect in.gltf --clips other.gltf --asset-root ..
ARGS
# Graph reader: the example graphs, the test scenario and the JSON blocks of docs/graph.md.
mkdir -p corpus/graph_reader
cp "$repo"/crates/throng-graph/graphs/*.json "$repo"/crates/throng-graph/tests/scenario.json corpus/graph_reader/
python3 - "$repo/docs/graph.md" corpus/graph_reader <<'PY'
import re, sys
doc, out = sys.argv[1], sys.argv[2]
for i, text in enumerate(re.findall(r"```json\n(.*?)```", open(doc).read(), re.S)):
    open("%s/doc-%02d.json" % (out, i), "w").write(text)
PY
for t in corpus/*; do
  echo "$(basename "$t"): $(find "$t" -type f | wc -l) seeds, $(du -sh "$t" | cut -f1)"
done
