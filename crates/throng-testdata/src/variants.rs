//! A small skinned glTF with two material variants (`KHR_materials_variants`), built in code:
//! the Khronos sample with variants (MaterialsVariantsShoe) has no skin.
//!
//! Two joints (`root` at the origin, `tip` 1 unit up, bent about Z by the clip `bend` over 1 s)
//! skin one mesh of two primitives, each a 4-vertex quad with TEXCOORD_0:
//!
//! | primitive | own material | variant 0 `red` | variant 1 `striped` |
//! |---|---|---|---|
//! | 0 `body` (y 0..2) | 0 `body`: white × texture `checker` | 2 `body red`: red × `checker` | 4 `body striped`: white × texture `stripes` |
//! | 1 `hat` (y 2..2.5) | 1 `hat`: grey, untextured | 3 `hat blue`: blue, untextured | — (keeps `hat`) |
//!
//! Textures are 4×4 PNGs (`checker`: image 0, `stripes`: image 1). Written as plain JSON and a
//! binary chunk so tests can edit the JSON ([`json`]) before packing it ([`glb_of`]).

use serde_json::{json, Value};

/// Material names in file order (see the module table).
pub const MATERIALS: [&str; 5] = ["body", "hat", "body red", "hat blue", "body striped"];
/// Linear RGBA base colour factors of [`MATERIALS`].
pub const FACTORS: [[f32; 4]; 5] = [
    [1.0, 1.0, 1.0, 1.0],
    [0.5, 0.5, 0.5, 1.0],
    [1.0, 0.0, 0.0, 1.0],
    [0.0, 0.0, 1.0, 1.0],
    [1.0, 1.0, 1.0, 1.0],
];
/// The source image of each material's base-colour texture.
pub const TEXTURES: [Option<usize>; 5] = [Some(0), None, Some(0), None, Some(1)];
/// Variant names in file order.
pub const VARIANTS: [&str; 2] = ["red", "striped"];
/// Per variant, the source material of primitive 0 and 1 (`None`: the primitive's own).
pub const MAPPINGS: [[Option<usize>; 2]; 2] = [[Some(2), Some(3)], [Some(4), None]];
/// Side of the square textures, pixels.
pub const TEXTURE_SIZE: u32 = 4;

/// A 4×4 RGBA PNG: `checker` alternates black and white texels, `stripes` has red and yellow
/// columns.
pub fn texture_png(stripes: bool) -> Vec<u8> {
    let img = image::RgbaImage::from_fn(TEXTURE_SIZE, TEXTURE_SIZE, |x, y| {
        if stripes {
            if x % 2 == 0 {
                image::Rgba([255, 0, 0, 255])
            } else {
                image::Rgba([255, 255, 0, 255])
            }
        } else if (x + y) % 2 == 0 {
            image::Rgba([255, 255, 255, 255])
        } else {
            image::Rgba([0, 0, 0, 255])
        }
    });
    let mut out = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .expect("encoding a 4×4 PNG in memory cannot fail");
    out
}

/// Appends `bytes` to `bin` at a 4-byte boundary and returns the bufferView JSON.
fn view(bin: &mut Vec<u8>, bytes: &[u8], target: Option<u32>) -> Value {
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let offset = bin.len();
    bin.extend_from_slice(bytes);
    let mut v = json!({"buffer": 0, "byteOffset": offset, "byteLength": bytes.len()});
    if let Some(t) = target {
        v["target"] = json!(t);
    }
    v
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The JSON document and its binary chunk.
pub fn json() -> (Value, Vec<u8>) {
    const ARRAY: u32 = 34962;
    const ELEMENTS: u32 = 34963;
    let mut bin = Vec::new();
    let mut views = Vec::new();
    let mut accessors = Vec::new();
    let mut primitives = Vec::new();
    // Each quad's y range.
    let quads = [(0.0f32, 2.0f32), (2.0, 2.5)];
    for (pi, (y0, y1)) in quads.iter().enumerate() {
        let pos = [-0.2, *y0, 0.0, 0.2, *y0, 0.0, 0.2, *y1, 0.0, -0.2, *y1, 0.0];
        let nrm = [0.0, 0.0, 1.0].repeat(4);
        let uv = [0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0];
        // Below y = 1 on the root joint, from 2 up (the body's top, the hat) on the tip; unused
        // influence slots hold joint 0 (the validator flags a joint with zero weight).
        let influence = |y: f32| -> ([u8; 4], [f32; 4]) {
            if y < 1.0 {
                ([0, 0, 0, 0], [1.0, 0.0, 0.0, 0.0])
            } else if y < 2.0 {
                ([0, 1, 0, 0], [0.5, 0.5, 0.0, 0.0])
            } else {
                ([1, 0, 0, 0], [1.0, 0.0, 0.0, 0.0])
            }
        };
        let ys = [*y0, *y0, *y1, *y1];
        let joints: Vec<u8> = ys.iter().flat_map(|y| influence(*y).0).collect();
        let weights: Vec<f32> = ys.iter().flat_map(|y| influence(*y).1).collect();
        let idx: Vec<u8> = [0u16, 1, 2, 0, 2, 3]
            .iter()
            .flat_map(|i| i.to_le_bytes())
            .collect();
        let base = accessors.len();
        let mut add = |bytes: Vec<u8>, target, acc: Value| {
            views.push(view(&mut bin, &bytes, target));
            let mut a = acc;
            a["bufferView"] = json!(views.len() - 1);
            accessors.push(a);
        };
        add(
            f32s(&pos),
            Some(ARRAY),
            json!({"componentType": 5126, "count": 4, "type": "VEC3",
                   "min": [-0.2, y0, 0.0], "max": [0.2, y1, 0.0]}),
        );
        add(
            f32s(&nrm),
            Some(ARRAY),
            json!({"componentType": 5126, "count": 4, "type": "VEC3"}),
        );
        add(
            f32s(&uv),
            Some(ARRAY),
            json!({"componentType": 5126, "count": 4, "type": "VEC2"}),
        );
        add(
            joints,
            Some(ARRAY),
            json!({"componentType": 5121, "count": 4, "type": "VEC4"}),
        );
        add(
            f32s(&weights),
            Some(ARRAY),
            json!({"componentType": 5126, "count": 4, "type": "VEC4"}),
        );
        add(
            idx,
            Some(ELEMENTS),
            json!({"componentType": 5123, "count": 6, "type": "SCALAR"}),
        );
        let mappings: Vec<Value> = (0..MATERIALS.len())
            .filter_map(|m| {
                let vs: Vec<usize> = (0..VARIANTS.len())
                    .filter(|&v| MAPPINGS[v][pi] == Some(m))
                    .collect();
                (!vs.is_empty()).then(|| json!({"material": m, "variants": vs}))
            })
            .collect();
        primitives.push(json!({
            "attributes": {"POSITION": base, "NORMAL": base + 1, "TEXCOORD_0": base + 2,
                           "JOINTS_0": base + 3, "WEIGHTS_0": base + 4},
            "indices": base + 5,
            "material": pi,
            "extensions": {"KHR_materials_variants": {"mappings": mappings}}
        }));
    }
    // Inverse bind matrices: identity for root, translate(0, -1, 0) for tip.
    let mut ibm = Vec::new();
    for ty in [0.0f32, -1.0] {
        ibm.extend_from_slice(&[
            1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, ty, 0.0, 1.0,
        ]);
    }
    views.push(view(&mut bin, &f32s(&ibm), None));
    let ibm_acc = accessors.len();
    accessors.push(
        json!({"bufferView": views.len() - 1, "componentType": 5126, "count": 2, "type": "MAT4"}),
    );
    // The clip: tip bends about Z, 0 → 0.8 rad → 0 over 1 s.
    let times = [0.0f32, 0.5, 1.0];
    let (s, c) = (0.4f32.sin(), 0.4f32.cos());
    let rot = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, s, c, 0.0, 0.0, 0.0, 1.0];
    views.push(view(&mut bin, &f32s(&times), None));
    let t_acc = accessors.len();
    accessors.push(
        json!({"bufferView": views.len() - 1, "componentType": 5126, "count": 3,
                          "type": "SCALAR", "min": [0.0], "max": [1.0]}),
    );
    views.push(view(&mut bin, &f32s(&rot), None));
    let r_acc = accessors.len();
    accessors.push(
        json!({"bufferView": views.len() - 1, "componentType": 5126, "count": 3, "type": "VEC4"}),
    );
    let mut images = Vec::new();
    for (name, stripes) in [("checker", false), ("stripes", true)] {
        views.push(view(&mut bin, &texture_png(stripes), None));
        images.push(json!({"name": name, "bufferView": views.len() - 1, "mimeType": "image/png"}));
    }
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let materials: Vec<Value> = (0..MATERIALS.len())
        .map(|m| {
            let mut pbr = json!({"baseColorFactor": FACTORS[m], "metallicFactor": 0.0});
            if let Some(t) = TEXTURES[m] {
                pbr["baseColorTexture"] = json!({"index": t});
            }
            json!({"name": MATERIALS[m], "pbrMetallicRoughness": pbr})
        })
        .collect();
    let doc = json!({
        "asset": {"version": "2.0", "generator": "throng-testdata variants"},
        "extensionsUsed": ["KHR_materials_variants"],
        "extensions": {"KHR_materials_variants": {
            "variants": VARIANTS.iter().map(|n| json!({"name": n})).collect::<Vec<_>>()
        }},
        "scene": 0,
        "scenes": [{"nodes": [0, 2]}],
        "nodes": [
            {"name": "root", "children": [1]},
            {"name": "tip", "translation": [0.0, 1.0, 0.0]},
            {"name": "character", "mesh": 0, "skin": 0}
        ],
        "skins": [{"joints": [0, 1], "inverseBindMatrices": ibm_acc, "skeleton": 0}],
        "meshes": [{"name": "figure", "primitives": primitives}],
        "materials": materials,
        "textures": [{"source": 0}, {"source": 1}],
        "images": images,
        "animations": [{
            "name": "bend",
            "samplers": [{"input": t_acc, "output": r_acc, "interpolation": "LINEAR"}],
            "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}]
        }],
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [{"byteLength": bin.len()}]
    });
    (doc, bin)
}

/// Packs `doc` and `bin` as a GLB.
pub fn glb_of(doc: &Value, bin: &[u8]) -> Vec<u8> {
    let text = serde_json::to_vec(doc).expect("a serde_json::Value always serialises");
    crate::glb::pack(&text, Some(bin))
}

/// The file as a GLB.
pub fn glb() -> Vec<u8> {
    let (doc, bin) = json();
    glb_of(&doc, &bin)
}
