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
