//! The GPU-facing structs: sizes and field offsets are part of the WGSL contract.

use std::mem::{align_of, offset_of, size_of};
use throng_contract::{
    GpuClip, GpuInstanceRecord, GpuLayer, InstanceRecord, InstanceTransform, Layer,
};

#[test]
fn instance_record_is_64_bytes_of_four_vec4() {
    assert_eq!(size_of::<InstanceRecord>(), 64);
    assert_eq!(align_of::<InstanceRecord>(), 16);
    assert_eq!(size_of::<Layer>(), 16);
    assert_eq!(offset_of!(Layer, weight), 0);
    assert_eq!(offset_of!(Layer, frac), 4);
    assert_eq!(offset_of!(Layer, row), 8);
    assert_eq!(offset_of!(Layer, clip), 12);
    let r = InstanceRecord::default();
    let base = &r as *const _ as usize;
    for k in 0..4 {
        assert_eq!(&r.layers[k] as *const _ as usize - base, 16 * k);
    }
    // slices upload unchanged
    let v = vec![InstanceRecord::default(); 3];
    assert_eq!(bytemuck::cast_slice::<_, u8>(&v).len(), 192);
}

#[test]
fn transform_is_three_vec4_rows() {
    assert_eq!(size_of::<InstanceTransform>(), 48);
    assert_eq!(align_of::<InstanceTransform>(), 16);
    let m = glam::Mat4::from_translation(glam::Vec3::new(1.0, 2.0, 3.0))
        * glam::Mat4::from_rotation_y(0.3);
    let t = InstanceTransform::from_mat4(&m);
    assert_eq!(t.rows[0][3], 1.0);
    assert_eq!(t.rows[1][3], 2.0);
    assert_eq!(t.rows[2][3], 3.0);
    assert!(t.to_mat4().abs_diff_eq(m, 1e-6));
}

#[test]
fn gpu_record_layout_matches_module_docs() {
    assert_eq!(size_of::<GpuLayer>(), 20);
    assert_eq!(offset_of!(GpuLayer, anchor), 0);
    assert_eq!(offset_of!(GpuLayer, phase), 4);
    assert_eq!(offset_of!(GpuLayer, omega_hi), 8);
    assert_eq!(offset_of!(GpuLayer, omega_lo), 12);
    assert_eq!(offset_of!(GpuLayer, clip_mode), 16);
    assert_eq!(size_of::<GpuInstanceRecord>(), 56);
    assert_eq!(align_of::<GpuInstanceRecord>(), 4);
    assert_eq!(offset_of!(GpuInstanceRecord, layers), 0);
    assert_eq!(offset_of!(GpuInstanceRecord, w_anchor), 40);
    assert_eq!(offset_of!(GpuInstanceRecord, w_start), 44);
    assert_eq!(offset_of!(GpuInstanceRecord, w_rate), 48);
    assert_eq!(offset_of!(GpuInstanceRecord, flags), 52);
}

#[test]
fn gpu_clip_is_two_words_two_pads_and_two_bound_vec4() {
    // One clip table for every shader (the GPU-timed arithmetic reads first_row and frames,
    // culling the bounds), 16-byte aligned members as WGSL lays them out.
    assert_eq!(size_of::<GpuClip>(), 48);
    assert_eq!(offset_of!(GpuClip, first_row), 0);
    assert_eq!(offset_of!(GpuClip, frames), 4);
    assert_eq!(offset_of!(GpuClip, bounds_min), 16);
    assert_eq!(offset_of!(GpuClip, bounds_max), 32);
}

#[test]
fn appearance_is_four_words_tint_first() {
    use throng_contract::Appearance;
    // One Rgba32Uint texel; the WGSL twin (throng::appearance) reads the words in this order.
    assert_eq!(size_of::<Appearance>(), 16);
    assert_eq!(align_of::<Appearance>(), 4);
    assert_eq!(offset_of!(Appearance, tint), 0);
    assert_eq!(offset_of!(Appearance, parts), 4);
    assert_eq!(offset_of!(Appearance, variant), 8);
    assert_eq!(offset_of!(Appearance, props), 12);
    let v = vec![Appearance::DEFAULT; 3];
    assert_eq!(bytemuck::cast_slice::<_, u8>(&v).len(), 48);
}
