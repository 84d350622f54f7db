//! gltf
