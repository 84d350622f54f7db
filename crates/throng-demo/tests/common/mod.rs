//! What the demo asset's test files share.

#![allow(dead_code)]

/// The first primitive of the first mesh: the demo character's only one.
pub fn first_primitive(doc: &gltf::Document) -> gltf::Primitive<'_> {
    doc.meshes()
        .next()
        .expect("mesh")
        .primitives()
        .next()
        .expect("prim")
}

/// The inverse bind matrices of `skin`, read from `buffers`.
pub fn inverse_binds(skin: &gltf::Skin, buffers: &[gltf::buffer::Data]) -> Vec<glam::Mat4> {
    skin.reader(|b| Some(&buffers[b.index()]))
        .read_inverse_bind_matrices()
        .expect("IBMs")
        .map(|m| glam::Mat4::from_cols_array_2d(&m))
        .collect()
}
