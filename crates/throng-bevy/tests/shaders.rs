//! The plugin's WGSL as it composes it, validated by naga without a GPU or a Bevy app:
//! the shared palette pass (`throng_asset::gpu::PALETTE_PASS`) with throng's shared modules (the contract's and
//! `throng_asset::gpu`'s) and exactly the shader defs `PalettePipeline::specialize` gives
//! Bevy, for every encoding and both timings; and `throng_bevy::crowd_vertex` (the vertex
//! function of the main, shadow and prepass programs) with the defs `CrowdKey::shader_defs`
//! gives them, for every encoding, timing, skinning path and influence count, with and
//! without motion vectors. (The main and depth programs themselves import Bevy's PBR and
//! prepass modules, which only a Bevy app composes: the example's tests run them.) A missing binding number, a def the shared
//! modules read that the plugin does not set, or a type error in the shared text fails here
//! with naga_oil's report instead of as a crowd that Bevy never draws. The per-instance culling
//! pass (`shaders/crowd_cull.wgsl` over the shared `throng::cull`) composes for every encoding
//! and timing, and its `CullJob` and `CullView` match their Rust twins. The structs the plugin
//! uploads have the sizes and member offsets of their Rust twins in the WGSL it composes
//! (`crowd_vertex` for every timing and path, the palette pass, `crowd_material` with the
//! shared `throng::material` slots of material variants), and the vertex function reads the shared vertex stream (`throng_asset::gpu::GpuVertex`) at its
//! locations, as throng-render's tests check for its own programs.

use std::collections::HashMap;

use bevy::render::render_resource::SpecializedComputePipeline;
use bevy::shader::ShaderDefVal;
use naga_oil::compose::{
    ComposableModuleDescriptor, Composer, NagaModuleDescriptor, ShaderDefValue, ShaderLanguage,
};
use throng_asset::Encoding;
use throng_bevy::render::{CrowdKey, PalettePipeline};

#[path = "../../throng-render/tests/naga_layout/mod.rs"]
mod naga_layout;

use naga_layout::{check, check_shared, check_vertex_inputs, vertex_inputs};

fn naga_defs(defs: &[ShaderDefVal]) -> HashMap<String, ShaderDefValue> {
    defs.iter()
        .map(|d| match d {
            ShaderDefVal::Bool(k, v) => (k.clone(), ShaderDefValue::Bool(*v)),
            ShaderDefVal::Int(k, v) => (k.clone(), ShaderDefValue::Int(*v)),
            ShaderDefVal::UInt(k, v) => (k.clone(), ShaderDefValue::UInt(*v)),
        })
        .collect()
}

/// A composer holding throng's shared modules.
fn shared_modules() -> Composer {
    let mut composer = Composer::default();
    for m in throng_contract::wgsl::modules()
        .into_iter()
        .chain(throng_asset::gpu::wgsl_modules())
    {
        let added = composer.add_composable_module(ComposableModuleDescriptor {
            source: &m.source,
            file_path: m.file,
            language: ShaderLanguage::Wgsl,
            as_name: Some(m.import_path.to_string()),
            ..Default::default()
        });
        if let Err(e) = added {
            panic!("{}: {}", m.file, e.emit_to_string(&composer));
        }
    }
    composer
}

fn validate(module: &naga::Module, what: &str) {
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(module)
    .unwrap_or_else(|e| panic!("{what}: {e:?}"));
}

/// A vertex entry point over `throng_bevy::crowd_vertex`, as crowd.wgsl and crowd_prepass.wgsl
/// call it: this frame's world vertex and, with MOTION, the previous frame's position.
const CROWD_VERTEX_USER: &str = r#"
#import throng::vertex::VertexIn
#import throng_bevy::crowd_vertex::{crowd_vertex, world_vertex, vertex_appearance}
#import throng_bevy::crowd_appearance::part_clip
#import throng::appearance::appearance_tint
#import throng_bevy::crowd_material::{material_slot, slot_uv}
#ifdef MOTION
#import throng_bevy::crowd_vertex::prev_world_position
#endif

@vertex
fn vertex(stream: VertexIn, @builtin(instance_index) instance_index: u32, @builtin(vertex_index) vertex_index: u32) -> @builtin(position) vec4<f32> {
    let v = crowd_vertex(stream, instance_index, vertex_index);
    var p = world_vertex(v).position;
#ifdef MOTION
    p += 1e-6 * prev_world_position(v);
#endif
    let look = vertex_appearance(v);
    // the main pass's material slot and uv (crowd.wgsl)
    p.x += 1e-6 * slot_uv(material_slot(look.variant), stream.uv).x;
    return part_clip(look, vec4<f32>(p, 1.0) * appearance_tint(look).x);
}
"#;

/// `throng_bevy::crowd_vertex` composed under [`CROWD_VERTEX_USER`] with the defs of `key`
/// (and `MOTION`), with a name for messages.
fn crowd_vertex_module(key: CrowdKey, motion: bool) -> (naga::Module, String) {
    let mut defs = key.shader_defs();
    if motion {
        defs.push("MOTION".into());
    }
    let what = format!("{} {key:?} motion={motion}", key.encoding);
    let mut composer = shared_modules();
    add_module(
        &mut composer,
        throng_bevy::CROWD_MATERIAL_WGSL,
        "crates/throng-bevy/shaders/crowd_material.wgsl",
    );
    add_module(
        &mut composer,
        throng_bevy::CROWD_APPEARANCE_WGSL,
        "crates/throng-bevy/shaders/crowd_appearance.wgsl",
    );
    add_module(
        &mut composer,
        throng_bevy::CROWD_VERTEX_WGSL,
        "crates/throng-bevy/shaders/crowd_vertex.wgsl",
    );
    let module = composer
        .make_naga_module(NagaModuleDescriptor {
            source: CROWD_VERTEX_USER,
            file_path: "crowd_vertex_user.wgsl",
            shader_defs: naga_defs(&defs),
            ..Default::default()
        })
        .unwrap_or_else(|e| panic!("{what}: {}", e.emit_to_string(&composer)));
    (module, what)
}

/// Adds one of the plugin's own WGSL modules to `composer`.
fn add_module(composer: &mut Composer, source: &str, file_path: &str) {
    let added = composer.add_composable_module(ComposableModuleDescriptor {
        source,
        file_path,
        language: ShaderLanguage::Wgsl,
        ..Default::default()
    });
    if let Err(e) = added {
        panic!("{file_path}: {}", e.emit_to_string(composer));
    }
}

#[test]
fn the_crowd_vertex_function_composes_and_validates_for_every_crowd_key() {
    let mut checked = 0;
    for encoding in Encoding::ALL {
        for bits in 0..64u32 {
            let [gpu_timed, palette, four_influences, motion, dual_quat, culled] =
                [1, 2, 4, 8, 16, 32].map(|b| bits & b != 0);
            if dual_quat && !encoding.is_quat() {
                // the plugin draws such a crowd with linear blend skinning
                continue;
            }
            let key = CrowdKey {
                encoding,
                gpu_timed,
                double_sided: false,
                palette,
                four_influences,
                dual_quat,
                vat: false,
                culled,
                far: false,
                card: false,
                dot: false,
            };
            let (module, what) = crowd_vertex_module(key, motion);
            validate(&module, &what);
            checked += 1;
        }
    }
    let quat = Encoding::ALL.iter().filter(|e| e.is_quat()).count();
    assert_eq!(checked, Encoding::ALL.len() * 32 + quat * 32);
}

/// The VAT path (def `VAT`, `throng::vat`): every key the plugin gives a VAT crowd — any
/// bone texture encoding (bound, not read), either timing, with and without motion vectors.
/// (Influences and skinning do not reach a VAT vertex; both `INFLUENCES_4` values compose.)
#[test]
fn the_vat_vertex_function_composes_and_validates_for_every_crowd_key() {
    let mut checked = 0;
    for encoding in Encoding::ALL {
        for bits in 0..8u32 {
            let [gpu_timed, four_influences, motion] = [1, 2, 4].map(|b| bits & b != 0);
            let key = CrowdKey {
                vat: true,
                four_influences,
                ..key(encoding, gpu_timed, false)
            };
            let (module, what) = crowd_vertex_module(key, motion);
            validate(&module, &what);
            checked += 1;
        }
    }
    assert_eq!(checked, Encoding::ALL.len() * 8);
}

/// The shared palette pass (`throng_asset::gpu::PALETTE_PASS`) composed with the defs `PalettePipeline::specialize` gives
/// Bevy.
fn palette_module(
    encoding: Encoding,
    gpu_timed: bool,
    dual_quat: bool,
    culled: bool,
) -> naga::Module {
    let pipeline = PalettePipeline {
        shader: Default::default(),
    };
    let desc = pipeline.specialize((encoding, gpu_timed, dual_quat, culled));
    let mut composer = shared_modules();
    composer
        .make_naga_module(NagaModuleDescriptor {
            source: throng_asset::gpu::PALETTE_PASS.1,
            file_path: throng_asset::gpu::PALETTE_PASS.0,
            shader_defs: naga_defs(&desc.shader_defs),
            ..Default::default()
        })
        .unwrap_or_else(|e| {
            panic!(
                "{encoding} gpu_timed={gpu_timed} dual_quat={dual_quat}: {}",
                e.emit_to_string(&composer)
            )
        })
}

#[test]
fn the_palette_pass_composes_and_validates_for_every_encoding_and_timing() {
    for encoding in Encoding::ALL {
        for bits in 0..8u32 {
            let [gpu_timed, dual_quat, culled] = [1, 2, 4].map(|b| bits & b != 0);
            if dual_quat && !encoding.is_quat() {
                continue;
            }
            let module = palette_module(encoding, gpu_timed, dual_quat, culled);
            let what =
                format!("{encoding} gpu_timed={gpu_timed} dual_quat={dual_quat} culled={culled}");
            validate(&module, &what);
            assert!(
                module.entry_points.iter().any(|e| e.name == "cs_palette"),
                "{what}: no cs_palette entry point"
            );
        }
    }
}

/// A crowd key of `encoding` on the palette or texture path, CPU- or GPU-timed.
fn key(encoding: Encoding, gpu_timed: bool, palette: bool) -> CrowdKey {
    CrowdKey {
        encoding,
        gpu_timed,
        double_sided: false,
        palette,
        four_influences: false,
        dual_quat: false,
        vat: false,
        culled: false,
        far: false,
        card: false,
        dot: false,
    }
}

/// The structs the vertex stage and the palette pass read (the contract's records, transforms
/// and clip table; throng-asset's bone parameters, palette entry, palette job and clock) have
/// the sizes and member offsets of the Rust types the plugin uploads.
#[test]
fn uploaded_structs_match_their_rust_twins() {
    let (cpu, _) = crowd_vertex_module(key(Encoding::QuatSnorm16, false, false), true);
    check_shared(
        &cpu,
        &[
            "Layer",
            "InstanceRecord",
            "InstanceTransform",
            "Clip",
            "BoneParams",
        ],
    );
    let (gpu, _) = crowd_vertex_module(key(Encoding::Mat4F32, true, false), true);
    check_shared(&gpu, &["GpuLayer", "GpuInstanceRecord", "Timing"]);
    let (palette_path, _) = crowd_vertex_module(key(Encoding::Mat4F32, false, true), true);
    check_shared(&palette_path, &["PaletteEntry"]);
    let vat_key = CrowdKey {
        vat: true,
        ..key(Encoding::Mat4F32, true, false)
    };
    let (vat_path, _) = crowd_vertex_module(vat_key, true);
    check_shared(&vat_path, &["VatParams"]);
    let palette = palette_module(Encoding::QuatSnorm16, true, false, true);
    check_shared(&palette, &["PaletteEntry", "Timing", "PaletteJob"]);
}

/// A user of `throng_bevy::crowd_material` (the main pass's material bindings), as crowd.wgsl
/// uses it: the slot of a variant, its uv and colour.
const CROWD_MATERIAL_USER: &str = r#"
#import throng_bevy::crowd_material::{draw, material_slot, slot_uv, slot_color}

@fragment
fn fragment(@location(0) uv: vec2<f32>, @location(1) @interpolate(flat) variant: u32) -> @location(0) vec4<f32> {
    let slot = material_slot(variant);
    return slot_color(slot, slot_uv(slot, uv)) + vec4<f32>(f32(draw.misc.y));
}
"#;

/// The main pass's uniforms have the layouts of their Rust twins: `crowd_material`'s
/// `DrawParams` (`throng_bevy::render::DrawParams`, 32 B) and `throng::material`'s `Material`
/// and `MaterialSet` (throng-asset's `MaterialUniform` and `MaterialSet`, 48 B and 848 B, the
/// ones throng-render uploads); the slots and their texture array are bound where the crowd
/// layout puts them (a uniform at `MATERIALS`, a float 2D array at `BASE_COLOR_LAYERS`), clear
/// of every other binding of the group.
#[test]
fn the_material_uniforms_match_their_rust_twins() {
    use bevy::render::render_resource::{BindingType, TextureViewDimension};
    use std::mem::{offset_of, size_of};
    use throng_asset::gpu::MaterialSet;
    use throng_bevy::render::bindings::{BASE_COLOR_LAYERS, CROWD_GROUP, MATERIALS};
    use throng_bevy::render::DrawParams;
    let mut composer = shared_modules();
    add_module(
        &mut composer,
        throng_bevy::CROWD_MATERIAL_WGSL,
        "crates/throng-bevy/shaders/crowd_material.wgsl",
    );
    let defs = key(Encoding::QuatSnorm16, false, true).shader_defs();
    let module = composer
        .make_naga_module(NagaModuleDescriptor {
            source: CROWD_MATERIAL_USER,
            file_path: "crowd_material_user.wgsl",
            shader_defs: naga_defs(&defs),
            ..Default::default()
        })
        .unwrap_or_else(|e| panic!("crowd_material: {}", e.emit_to_string(&composer)));
    validate(&module, "crowd_material");
    check(
        &module,
        "DrawParams",
        size_of::<DrawParams>(),
        &[offset_of!(DrawParams, misc), offset_of!(DrawParams, far)],
    );
    assert_eq!(size_of::<DrawParams>(), 32);
    check_shared(&module, &["Material", "MaterialSet"]);
    assert_eq!(size_of::<MaterialSet>(), 848);
    // where the module binds them
    let bound = |binding: u32| -> Vec<naga::TypeInner> {
        module
            .global_variables
            .iter()
            .filter(|(_, g)| {
                g.binding
                    .as_ref()
                    .is_some_and(|b| b.group == CROWD_GROUP && b.binding == binding)
            })
            .map(|(_, g)| module.types[g.ty].inner.clone())
            .collect()
    };
    assert!(
        matches!(
            bound(MATERIALS).as_slice(),
            [naga::TypeInner::Struct { span: 848, .. }]
        ),
        "{:?}",
        bound(MATERIALS)
    );
    assert!(
        matches!(
            bound(BASE_COLOR_LAYERS).as_slice(),
            [naga::TypeInner::Image {
                dim: naga::ImageDimension::D2,
                arrayed: true,
                class: naga::ImageClass::Sampled {
                    kind: naga::ScalarKind::Float,
                    multi: false
                },
            }]
        ),
        "{:?}",
        bound(BASE_COLOR_LAYERS)
    );
    // and where the layout puts them
    for vat in [false, true] {
        let layout = throng_bevy::render::crowd_layout(Encoding::QuatSnorm16, vat, false);
        let entry = |b: u32| layout.entries.iter().find(|e| e.binding == b).cloned();
        assert!(matches!(
            entry(MATERIALS).map(|e| e.ty),
            Some(BindingType::Buffer {
                ty: bevy::render::render_resource::BufferBindingType::Uniform,
                ..
            })
        ));
        assert!(matches!(
            entry(BASE_COLOR_LAYERS).map(|e| e.ty),
            Some(BindingType::Texture {
                view_dimension: TextureViewDimension::D2Array,
                multisampled: false,
                ..
            })
        ));
        let mut numbers: Vec<u32> = layout.entries.iter().map(|e| e.binding).collect();
        numbers.sort_unstable();
        numbers.dedup();
        assert_eq!(numbers.len(), layout.entries.len(), "vat {vat}");
    }
}

/// The vertex function reads the shared vertex stream at its locations and types (every
/// attribute with 8 influences), and the plugin's vertex layout is that stream's: the same
/// stride, and each attribute at its location, offset and format.
#[test]
fn the_vertex_function_reads_the_shared_vertex_stream() {
    use throng_asset::gpu::{GpuVertex, VertexFormat};
    for four_influences in [false, true] {
        for palette in [false, true] {
            let k = CrowdKey {
                four_influences,
                ..key(Encoding::Mat3x4F16, false, palette)
            };
            let (module, what) = crowd_vertex_module(k, false);
            let inputs = vertex_inputs(&module, "vertex");
            check_vertex_inputs(&what, &inputs);
            if !four_influences {
                let mut read: Vec<u32> = inputs.iter().map(|(l, _)| *l).collect();
                read.sort_unstable();
                assert_eq!(read, (0..7).collect::<Vec<u32>>(), "{what}");
            }
        }
    }
    let layout = throng_bevy::render::vertex_layout();
    assert_eq!(layout.array_stride, GpuVertex::STRIDE);
    assert_eq!(layout.attributes.len(), GpuVertex::ATTRIBUTES.len());
    for (a, want) in layout.attributes.iter().zip(GpuVertex::ATTRIBUTES) {
        assert_eq!(a.shader_location, want.location);
        assert_eq!(a.offset, want.offset);
        let format = match want.format {
            VertexFormat::Float32x2 => bevy::render::render_resource::VertexFormat::Float32x2,
            VertexFormat::Float32x3 => bevy::render::render_resource::VertexFormat::Float32x3,
            VertexFormat::Uint16x4 => bevy::render::render_resource::VertexFormat::Uint16x4,
        };
        assert_eq!(a.format, format, "location {}", a.shader_location);
    }
}

/// `shaders/crowd_cull.wgsl` (per-instance culling, over the shared `throng::cull`) composed
/// with the defs `CullPipeline::specialize` gives Bevy.
fn cull_module(encoding: Encoding, gpu_timed: bool) -> naga::Module {
    use throng_bevy::render::cull::CullPipeline;
    let pipeline = CullPipeline {
        shader: Default::default(),
    };
    let desc = pipeline.specialize((encoding, gpu_timed, 0));
    let mut composer = shared_modules();
    composer
        .make_naga_module(NagaModuleDescriptor {
            source: include_str!("../shaders/crowd_cull.wgsl"),
            file_path: "crates/throng-bevy/shaders/crowd_cull.wgsl",
            shader_defs: naga_defs(&desc.shader_defs),
            ..Default::default()
        })
        .unwrap_or_else(|e| {
            panic!(
                "crowd_cull {encoding} gpu_timed={gpu_timed}: {}",
                e.emit_to_string(&composer)
            )
        })
}

/// The culling pass composes and validates for every encoding and timing, with both entry
/// points, and the structs it reads (`CullJob`, `CullView`, the indirect arguments) have the
/// layouts of the Rust twins the plugin uploads.
#[test]
fn the_culling_pass_composes_validates_and_matches_its_rust_twins() {
    use std::mem::{offset_of, size_of};
    use throng_bevy::render::cull::{CullJob, CullView};
    for encoding in Encoding::ALL {
        for gpu_timed in [false, true] {
            let module = cull_module(encoding, gpu_timed);
            let what = format!("crowd_cull {encoding} gpu_timed={gpu_timed}");
            validate(&module, &what);
            for entry in ["cs_cull", "cs_cull_finish"] {
                assert!(
                    module.entry_points.iter().any(|e| e.name == entry),
                    "{what}: no {entry}"
                );
            }
        }
    }
    let module = cull_module(Encoding::QuatSnorm16, false);
    check(
        &module,
        "CullJob",
        size_of::<CullJob>(),
        &[
            offset_of!(CullJob, fallback_min),
            offset_of!(CullJob, fallback_max),
            offset_of!(CullJob, lod_error),
            offset_of!(CullJob, instance_count),
            offset_of!(CullJob, view_count),
            offset_of!(CullJob, lod_count),
            offset_of!(CullJob, primitive_count),
            offset_of!(CullJob, segment),
            offset_of!(CullJob, palette_base),
            offset_of!(CullJob, row_pad),
            offset_of!(CullJob, row_bounds),
            offset_of!(CullJob, lod_bias),
            offset_of!(CullJob, far_level),
            offset_of!(CullJob, far_band),
            offset_of!(CullJob, _pad),
            offset_of!(CullJob, far_sphere),
        ],
    );
    check(
        &module,
        "CullView",
        size_of::<CullView>(),
        &[
            offset_of!(CullView, planes),
            offset_of!(CullView, eye),
            offset_of!(CullView, ortho),
            offset_of!(CullView, floor_view),
            offset_of!(CullView, viewport),
            offset_of!(CullView, light),
            offset_of!(CullView, clip_from_world),
            offset_of!(CullView, pixel_test),
            offset_of!(CullView, dots),
            offset_of!(CullView, _pad),
            offset_of!(CullView, _pad) + 4,
        ],
    );
    check_shared(&module, &["DrawArgs"]);
    assert_eq!(size_of::<CullJob>(), 128);
    assert_eq!(size_of::<CullView>(), 224);
}

/// The appearance every pass reads (`throng_bevy::crowd_appearance`): `throng::appearance`'s
/// struct has the layout of `throng_contract::Appearance` in the composed vertex program, its
/// texture is bound where the crowd layout puts it (group `CROWD_GROUP`, binding
/// `APPEARANCES`, an unsigned-integer 2D texture visible to the vertex and fragment stages),
/// and the part bit is the `DrawParams.misc.z` the plugin writes.
#[test]
fn the_appearance_texture_is_bound_where_the_layout_puts_it() {
    use bevy::render::render_resource::{BindingType, ShaderStages, TextureSampleType};
    use throng_bevy::render::bindings::{APPEARANCES, CROWD_GROUP};
    for vat in [false, true] {
        let k = CrowdKey {
            vat,
            ..key(Encoding::Mat3x4F16, false, true)
        };
        let (module, what) = crowd_vertex_module(k, false);
        check_shared(&module, &["Appearance"]);
        let bound: Vec<_> = module
            .global_variables
            .iter()
            .filter(|(_, g)| {
                g.binding
                    .as_ref()
                    .is_some_and(|b| b.group == CROWD_GROUP && b.binding == APPEARANCES)
            })
            .map(|(_, g)| &module.types[g.ty].inner)
            .collect();
        assert!(
            matches!(
                bound.as_slice(),
                [naga::TypeInner::Image {
                    dim: naga::ImageDimension::D2,
                    arrayed: false,
                    class: naga::ImageClass::Sampled {
                        kind: naga::ScalarKind::Uint,
                        multi: false
                    },
                }]
            ),
            "{what}: {bound:?}"
        );
        let layout = throng_bevy::render::crowd_layout(Encoding::Mat3x4F16, vat, false);
        let entries: Vec<_> = layout
            .entries
            .iter()
            .filter(|e| e.binding == APPEARANCES)
            .collect();
        assert_eq!(entries.len(), 1, "{what}");
        assert_eq!(entries[0].visibility, ShaderStages::VERTEX_FRAGMENT);
        assert!(matches!(
            entries[0].ty,
            BindingType::Texture {
                sample_type: TextureSampleType::Uint,
                view_dimension: bevy::render::render_resource::TextureViewDimension::D2,
                multisampled: false,
            }
        ));
        // no other binding of the crowd group has the appearance's number
        let mut numbers: Vec<u32> = layout.entries.iter().map(|e| e.binding).collect();
        numbers.sort_unstable();
        numbers.dedup();
        assert_eq!(numbers.len(), layout.entries.len(), "{what}");
    }
}

/// A user of `throng_bevy::crowd_far` (the far tier's cards), as crowd.wgsl's and
/// crowd_prepass.wgsl's `card_vertex` and `card_fragment` use it (their view, which only Bevy
/// composes, replaced by a fixed direction).
const CROWD_FAR_USER: &str = r#"
#import throng_bevy::crowd_far::{card_of, card_point, card_dot, dot_pixel, card_texel, card_covers, card_normal, card_share}

struct Out {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) @interpolate(flat) tiles: vec4<u32>,
    @location(2) @interpolate(flat) weights: vec4<f32>,
    @location(3) @interpolate(flat) look: vec4<u32>,
    @location(4) @interpolate(flat) kx: vec3<f32>,
    @location(5) @interpolate(flat) ky: vec3<f32>,
    @location(6) @interpolate(flat) kz: vec3<f32>,
    @location(7) @interpolate(flat) share: f32,
}

@vertex
fn card_vertex(@builtin(instance_index) instance_index: u32, @builtin(vertex_index) vertex_index: u32) -> Out {
    let c = card_of(instance_index);
    let p = card_point(c, vec3<f32>(0.0, 0.0, 1.0) - c.centre, vertex_index);
    let share = card_share(c.m, vec4<f32>(0.0, 0.0, 1.0, 500.0));
    return Out(vec4<f32>(p.world, 1.0), p.uv, p.tiles, p.weights, p.look, p.kx, p.ky, p.kz, share);
}

@vertex
fn card_dot_vertex(@builtin(instance_index) instance_index: u32, @builtin(vertex_index) vertex_index: u32) -> Out {
    let c = card_of(instance_index - vertex_index);
    let clip_from_world = mat4x4<f32>(vec4<f32>(1.0, 0.0, 0.0, 0.0), vec4<f32>(0.0, 1.0, 0.0, 0.0), vec4<f32>(0.0, 0.0, 0.0, -1.0), vec4<f32>(0.0, 0.0, 0.1, 0.0));
    let eye = vec4<f32>(0.0, 0.0, 1.0, 90.0);
    let px = dot_pixel(c, clip_from_world, vec2<f32>(320.0, 180.0), eye);
    let d = card_dot(c, eye.xyz - c.centre, clip_from_world, px.ndc);
    let p = d.point;
    var clip = clip_from_world * vec4<f32>(p.world, 1.0);
    if (!d.inside) {
        clip = vec4<f32>(2.0, 2.0, 2.0, 1.0);
    }
    let share = card_share(c.m, eye);
    return Out(clip, p.uv, p.tiles, p.weights, p.look, p.kx, p.ky, p.kz, share);
}

@fragment
fn card_fragment(in: Out) -> @location(0) vec4<f32> {
    let t = card_texel(in.uv, in.tiles, in.weights, in.look);
    if (!card_covers(t, in.clip.xy, in.share)) {
        discard;
    }
    return vec4<f32>(t.albedo * card_normal(t, in.kx, in.ky, in.kz), 1.0);
}
"#;

/// The far tier's card module composes and validates with the defs `CrowdKey::card_of` gives
/// its pipelines, for every encoding and timing, on the palette and texture paths, with a
/// card's vertex stage and a one-pixel card's (`card_dot_vertex`'s functions); its
/// `FarParams` and `FarClip` have the layouts of throng-asset's Rust twins, and its bindings
/// are the crowd layout's far entries.
#[test]
fn the_far_tier_card_module_composes_for_every_crowd_key() {
    use bevy::render::render_resource::BindingType;
    use std::mem::{offset_of, size_of};
    use throng_asset::gpu::far::{FarClipWords, FarParams};
    let mut checked = 0;
    for encoding in Encoding::ALL {
        for bits in 0..4u32 {
            let [gpu_timed, palette] = [1, 2].map(|b| bits & b != 0);
            let k = CrowdKey {
                culled: true,
                far: true,
                card: true,
                ..key(encoding, gpu_timed, palette)
            };
            let what = format!("crowd_far {k:?}");
            let mut composer = shared_modules();
            for (source, file) in [
                (throng_bevy::CROWD_MATERIAL_WGSL, "crowd_material.wgsl"),
                (throng_bevy::CROWD_APPEARANCE_WGSL, "crowd_appearance.wgsl"),
                (throng_bevy::CROWD_FAR_WGSL, "crowd_far.wgsl"),
            ] {
                add_module(&mut composer, source, file);
            }
            let module = composer
                .make_naga_module(NagaModuleDescriptor {
                    source: CROWD_FAR_USER,
                    file_path: "crowd_far_user.wgsl",
                    shader_defs: naga_defs(&k.shader_defs()),
                    ..Default::default()
                })
                .unwrap_or_else(|e| panic!("{what}: {}", e.emit_to_string(&composer)));
            validate(&module, &what);
            if checked == 0 {
                check(
                    &module,
                    "FarParams",
                    size_of::<FarParams>(),
                    &[
                        offset_of!(FarParams, sphere),
                        offset_of!(FarParams, grid),
                        offset_of!(FarParams, elevation_bounds),
                    ],
                );
                check(
                    &module,
                    "FarClip",
                    size_of::<FarClipWords>(),
                    &[
                        offset_of!(FarClipWords, first_frame),
                        offset_of!(FarClipWords, frames),
                        offset_of!(FarClipWords, looped),
                        offset_of!(FarClipWords, pad),
                    ],
                );
                // Every far binding the module declares is in the crowd layout, in the crowd's
                // group, of the kind it reads.
                let layout = k.layout();
                let far_bindings: Vec<u32> = module
                    .global_variables
                    .iter()
                    .filter(|(_, v)| v.name.as_deref().is_some_and(|n| n.starts_with("far_")))
                    .filter_map(|(_, v)| v.binding.as_ref())
                    .map(|b| {
                        assert_eq!(b.group, throng_bevy::render::CROWD_GROUP, "{what}");
                        b.binding
                    })
                    .collect();
                assert_eq!(far_bindings.len(), 7, "{what}: {far_bindings:?}");
                for b in far_bindings {
                    let entry = layout
                        .entries
                        .iter()
                        .find(|e| e.binding == b)
                        .unwrap_or_else(|| panic!("{what}: binding {b} not in the crowd layout"));
                    assert!(
                        matches!(
                            entry.ty,
                            BindingType::Texture { .. } | BindingType::Buffer { .. }
                        ),
                        "{what}: binding {b}"
                    );
                }
            }
            checked += 1;
        }
    }
    assert_eq!(checked, Encoding::ALL.len() * 4);
}

/// The GPU graph step (throng-contract `shaders/graph_step.wgsl`, `render::graph_step`)
/// composes with the defs the plugin gives it and validates, has its five entry points, binds
/// exactly what `graph_step_layout` lays out (group 0: bindings 0–7 and the frame-time lists
/// at the plugin's binding, each with the layout's buffer kind), and its `GraphStepParams`
/// has the layout of the contract's Rust twin the plugin uploads (`naga_layout`'s table,
/// which throng-render's test checks its program against too).
#[test]
fn the_graph_step_composes_validates_and_binds_what_its_layout_lays_out() {
    use bevy::render::render_resource::{BindingType, BufferBindingType};
    use throng_bevy::render::graph_step::{graph_step_layout, graph_step_pipeline};
    let desc = graph_step_pipeline(Default::default(), "cs_graph_step");
    let (file, source) = throng_contract::wgsl::GRAPH_STEP_PASS;
    let mut composer = shared_modules();
    let module = composer
        .make_naga_module(NagaModuleDescriptor {
            source,
            file_path: file,
            shader_defs: naga_defs(&desc.shader_defs),
            ..Default::default()
        })
        .unwrap_or_else(|e| panic!("graph_step: {}", e.emit_to_string(&composer)));
    validate(&module, "graph_step");
    for entry in [
        "cs_graph_params",
        "cs_graph_clip_event_counts",
        "cs_graph_clip_event_offsets",
        "cs_graph_clip_events",
        "cs_graph_step",
    ] {
        assert!(
            module.entry_points.iter().any(|e| e.name == entry),
            "graph_step: no {entry}"
        );
    }
    // every binding the program declares, with whether it is a uniform or a read-only buffer
    let mut bound: Vec<(u32, u32, &str)> = module
        .global_variables
        .iter()
        .filter_map(|(_, v)| {
            let b = v.binding.as_ref()?;
            let kind = match v.space {
                naga::AddressSpace::Uniform => "uniform",
                naga::AddressSpace::Storage { access }
                    if !access.contains(naga::StorageAccess::STORE) =>
                {
                    "read"
                }
                naga::AddressSpace::Storage { .. } => "write",
                _ => "other",
            };
            Some((b.group, b.binding, kind))
        })
        .collect();
    bound.sort();
    let mut laid: Vec<(u32, u32, &str)> = graph_step_layout()
        .entries
        .iter()
        .map(|e| {
            let kind = match e.ty {
                BindingType::Buffer {
                    ty: BufferBindingType::Uniform,
                    ..
                } => "uniform",
                BindingType::Buffer {
                    ty: BufferBindingType::Storage { read_only: true },
                    ..
                } => "read",
                BindingType::Buffer { .. } => "write",
                _ => "other",
            };
            (0, e.binding, kind)
        })
        .collect();
    laid.sort();
    assert_eq!(
        bound, laid,
        "the program's bindings against graph_step_layout"
    );
    check_shared(&module, &["GraphStepParams"]);
}
