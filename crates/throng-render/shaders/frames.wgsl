// frames.wgsl: which frame-table rows a layer reads.

// The layer's row and the next row clamped into the layer's clip (DESIGN.md §4: the CPU writes
// frac = 0 on a clip's last row; the shader still must not read the next clip's first row).
// Rows are clamped into the table so a bad record cannot read outside the texture.
fn layer_rows(l: Layer) -> vec2<u32> {
    let last_row = bone_params.rows - 1u;
    let row = min(u32(max(l.row, 0.0)), last_row);
    var last = last_row;
    let c = u32(max(l.clip, 0.0));
    if (c < bone_params.clip_count) {
        let clip = clips[c];
        last = min(clip.first_row + max(clip.frames, 1u) - 1u, last_row);
    }
    return vec2<u32>(row, max(min(row + 1u, last), row));
}
