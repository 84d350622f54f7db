// throng::vat — vertex animation texture path (docs/design.md §3 "VAT"): per frame-table
// row and vertex the skinned model-space position and normal, fetched instead of skinning.
// Shared by every embedding (throng-render's vat_draw.wgsl, throng-bevy's crowd_vertex.wgsl
// with def VAT), which supply the group and binding numbers G_VAT and B_VAT_*.
// Layers and frames are blended exactly like skin matrices (taps by weight, layers by weight) and the
// normal is renormalised. CPU twin: throng_asset::vat::{fetch_position, fetch_normal,
// oct_unwrap, vat_vertices}, line by line.
#define_import_path throng::vat

#import throng::decode::{Skinned, normalize_or_zero, vat_unorm16_position, vat_normal_decode}
#import throng::bone::{layer_taps_of, layer_is_base}
#import throng::instances::shown_layers

// Rust twin: throng_asset::gpu::VatParams (48 B).
struct VatParams {
    // 0 f32, 1 f16, 2 unorm16 (throng_asset::VatEncoding).
    encoding: u32,
    // Texels per texture row, W.
    width: u32,
    // Texture rows per frame-table row, R = ceil(V / W).
    rows_per_frame: u32,
    // Texture rows per array layer.
    rows_per_layer: u32,
    // unorm16 range (file units).
    min: vec4<f32>,
    max: vec4<f32>,
}

@group(#{G_VAT}) @binding(#{B_VAT_PARAMS}) var<uniform> vat: VatParams;
// Float encodings: Rgba32Float / Rgba16Float positions (x, y, z, 1).
@group(#{G_VAT}) @binding(#{B_VAT_POSITIONS_FLOAT}) var vat_positions_float: texture_2d_array<f32>;
// unorm16: Rgba16Uint positions (qx, qy, qz, 0).
@group(#{G_VAT}) @binding(#{B_VAT_POSITIONS_UINT}) var vat_positions_uint: texture_2d_array<u32>;
// Octahedral normals, two snorm16 in Rg16Sint.
@group(#{G_VAT}) @binding(#{B_VAT_NORMALS}) var vat_normals: texture_2d_array<i32>;

// Texel of vertex v at frame-table row f: (v mod W, f·R + v div W), split into array layers.
fn vat_coords(v: u32, f: u32) -> vec3<u32> {
    let y = f * vat.rows_per_frame + v / vat.width;
    return vec3<u32>(v % vat.width, y % vat.rows_per_layer, y / vat.rows_per_layer);
}

fn vat_position(v: u32, f: u32) -> vec3<f32> {
    let c = vat_coords(v, f);
    if (vat.encoding == 2u) {
        return vat_unorm16_position(textureLoad(vat_positions_uint, c.xy, c.z, 0).xyz, vat.min.xyz, vat.max.xyz);
    }
    return textureLoad(vat_positions_float, c.xy, c.z, 0).xyz;
}

fn vat_normal(v: u32, f: u32) -> vec3<f32> {
    let c = vat_coords(v, f);
    return vat_normal_decode(textureLoad(vat_normals, c.xy, c.z, 0).xy);
}

// Model-space position and normal of vertex v for instance inst.
fn vat_vertex(inst: u32, v: u32) -> Skinned {
    var layers = shown_layers(inst);
    var p = vec3<f32>(0.0);
    var n = vec3<f32>(0.0);
    for (var i = 0u; i < 4u; i++) {
        let l = layers[i];
        if (layer_is_base(l)) {
            let t = layer_taps_of(l);
            var lp = vec3<f32>(0.0);
            var ln = vec3<f32>(0.0);
            for (var r = 0u; r < 4u; r++) {
                let w = t.weights[r];
                if (w != 0.0) {
                    lp += vat_position(v, t.rows[r]) * w;
                    ln += vat_normal(v, t.rows[r]) * w;
                }
            }
            p += lp * l.weight;
            n += ln * l.weight;
        }
    }
    var out: Skinned;
    out.position = p;
    out.normal = normalize_or_zero(n);
    out.tangent = vec4<f32>(1.0, 0.0, 0.0, 1.0);
    return out;
}
