//! A Unity URP folder (docs/export.md "Unity"): the OpenVAT data as 16-bit PNG with an HLSL
//! include for a Shader Graph custom function, an importer script and a README. The templates
//! cannot run here (no Unity); their decode is OpenVAT's, which the tests check on the data.

use super::godot::{clip_constants, clip_list, fill, lit};
use super::openvat;
use super::{EngineExportError, ExportInput, VatContainer, Written};

const HLSL: &str = include_str!("../../templates/unity/ThrongVAT.hlsl");
const IMPORTER: &str = include_str!("../../templates/unity/ThrongVATImporter.cs");
const README: &str = include_str!("../../templates/unity/README.md");

/// `--format unity`.
pub fn write(input: &ExportInput<'_>) -> Result<Written, EngineExportError> {
    let container = input.options.container.unwrap_or(VatContainer::Png16);
    let vat = openvat::build(input, container)?;
    let f3 = |v: [f32; 3]| {
        format!(
            "{}, {}, {}",
            lit(v[0] as f64),
            lit(v[1] as f64),
            lit(v[2] as f64)
        )
    };
    let values: Vec<(&str, String)> = vec![
        ("NAME", input.options.name.clone()),
        ("FOLDER", input.folder.clone()),
        ("TEXTURE", vat.texture_name.clone()),
        ("MESH", vat.mesh_name.clone()),
        ("REMAP", vat.remap_name.clone()),
        ("MIN", f3(vat.min)),
        ("MAX", f3(vat.max)),
        ("HEIGHT", vat.layout.height.to_string()),
        ("CLIPS", clip_constants(input)),
        ("CLIP_LIST", clip_list(input)),
        ("FPS", lit(input.plan.fps)),
        ("FRAMES", input.plan.total_frames().to_string()),
    ];
    let mut files = vat.files;
    files.push(("ThrongVAT.hlsl".into(), fill(HLSL, &values).into_bytes()));
    files.push((
        "Editor/ThrongVATImporter.cs".into(),
        fill(IMPORTER, &values).into_bytes(),
    ));
    files.push(("README.md".into(), fill(README, &values).into_bytes()));
    Ok(Written {
        files,
        texture: (vat.layout.width, vat.layout.height),
        notes: vec!["copy the folder into Assets/ (Editor/ThrongVATImporter.cs first) and import the mesh with glTFast".into()],
    })
}
