//! Material variants end to end (issue 37): the skinned test file's `KHR_materials_variants`
//! (`red`, `striped`) and a texture variant given to Fox's bake (`blue`: its own texture
//! recoloured, at half size, resized by the bake) go through the library bake, a baked file
//! written and read back, and the crowd's texture and palette paths, each instance showing
//! variant 0, 1, 2, … (one past the last shows the own materials), against the reference path:
//! at most 0.5 % of the pixels, overall and per instance, differ by more than 8/255. The
//! variants differ from each other, and the instance showing `red` is red.

mod common;

#[test]
fn baked_variants_draw_what_the_reference_path_draws() {
    let Some(mut r) = common::renderer() else {
        return;
    };
    common::variants::scenario(&mut r, "");
}
