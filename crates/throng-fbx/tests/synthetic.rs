//! Cases the shared assets lack, in small ASCII FBX files written here: a mesh without a skin
//! under an animated bone (a rigid part: a sword in a hand), with a geometric transform that
//! moves the mesh but not the node, in a centimetre file. Expected positions are computed by
//! hand from FBX's transform definition (world = parent · T · R · S, geometry transform after
//! the node's), then converted to metres.

use glam::{Mat4, Quat, Vec3};
use throng_anim::{BindingKind, ModelSkinner, Skinning};

/// One second in FBX time units (KTime ticks).
const SECOND: i64 = 46_186_158_000;

/// A bone at (0, 1, 0) cm rotating about +Z from 0° at 0 s to 90° at 1 s (linear keys), and a
/// mesh node "Sword" under it at (1, 0, 0) with a geometric translation (0, 0.5, 0): one
/// triangle (0,0,0), (1,0,0), (0,1,0). Y-up, 1 unit = 1 cm.
fn sword_in_hand() -> String {
    format!(
        r#"; FBX 7.4.0 project file
FBXHeaderExtension:  {{
	FBXHeaderVersion: 1003
	FBXVersion: 7400
}}
GlobalSettings:  {{
	Version: 1000
	Properties70:  {{
		P: "UpAxis", "int", "Integer", "",1
		P: "UpAxisSign", "int", "Integer", "",1
		P: "FrontAxis", "int", "Integer", "",2
		P: "FrontAxisSign", "int", "Integer", "",1
		P: "CoordAxis", "int", "Integer", "",0
		P: "CoordAxisSign", "int", "Integer", "",1
		P: "UnitScaleFactor", "double", "Number", "",1
		P: "TimeMode", "enum", "", "",11
	}}
}}
Objects:  {{
	NodeAttribute: 1001, "NodeAttribute::Hand", "LimbNode" {{
		TypeFlags: "Skeleton"
	}}
	Model: 1000, "Model::Hand", "LimbNode" {{
		Version: 232
		Properties70:  {{
			P: "Lcl Translation", "Lcl Translation", "", "A",0,1,0
		}}
	}}
	Model: 2000, "Model::Sword", "Mesh" {{
		Version: 232
		Properties70:  {{
			P: "Lcl Translation", "Lcl Translation", "", "A",1,0,0
			P: "GeometricTranslation", "Vector3D", "Vector", "",0,0.5,0
		}}
	}}
	Geometry: 3000, "Geometry::Sword", "Mesh" {{
		Vertices: *9 {{
			a: 0,0,0,1,0,0,0,1,0
		}}
		PolygonVertexIndex: *3 {{
			a: 0,1,-3
		}}
		GeometryVersion: 124
	}}
	AnimationStack: 4000, "AnimStack::Swing", "" {{
		Properties70:  {{
			P: "LocalStart", "KTime", "Time", "",0
			P: "LocalStop", "KTime", "Time", "",{SECOND}
		}}
	}}
	AnimationLayer: 4001, "AnimLayer::BaseLayer", "" {{
	}}
	AnimationCurveNode: 4002, "AnimCurveNode::R", "" {{
		Properties70:  {{
			P: "d|X", "Number", "", "A",0
			P: "d|Y", "Number", "", "A",0
			P: "d|Z", "Number", "", "A",0
		}}
	}}
	AnimationCurve: 4003, "AnimCurve::", "" {{
		Default: 0
		KeyVer: 4008
		KeyTime: *2 {{
			a: 0,{SECOND}
		}}
		KeyValueFloat: *2 {{
			a: 0,90
		}}
		KeyAttrFlags: *1 {{
			a: 4
		}}
		KeyAttrDataFloat: *4 {{
			a: 0,0,0,0
		}}
		KeyAttrRefCount: *1 {{
			a: 2
		}}
	}}
}}
Connections:  {{
	C: "OO",1000,0
	C: "OO",1001,1000
	C: "OO",2000,1000
	C: "OO",3000,2000
	C: "OO",4001,4000
	C: "OO",4002,4001
	C: "OP",4002,1000, "Lcl Rotation"
	C: "OP",4003,4002, "d|Z"
}}
"#
    )
}

#[test]
fn rigid_mesh_under_an_animated_bone_with_a_geometric_transform() {
    let text = sword_in_hand();
    let model = throng_fbx::import_slice(text.as_bytes(), None, "sword.fbx")
        .unwrap_or_else(|e| panic!("{e}"));
    let bindings = model.mesh_bindings();
    assert_eq!(bindings.len(), 1, "{bindings:?}");
    assert_eq!(bindings[0].kind, BindingKind::Rigid);
    assert_eq!(model.clips.len(), 1);
    assert_eq!(model.clips[0].name, "Swing");
    assert!((model.clips[0].duration - 1.0).abs() < 1e-6);
    let mut skinner = ModelSkinner::new(&model);
    let mut parts = Vec::new();
    for t in [0.0f32, 0.25, 0.5, 1.0] {
        skinner.skin(&model, Some(0), t, Skinning::Linear, &mut parts);
        let angle = t * std::f32::consts::FRAC_PI_2;
        // Hand · R · Sword · geometric translation, in cm, then to metres.
        let world = Mat4::from_translation(Vec3::new(0.0, 1.0, 0.0))
            * Mat4::from_quat(Quat::from_rotation_z(angle))
            * Mat4::from_translation(Vec3::new(1.0, 0.0, 0.0))
            * Mat4::from_translation(Vec3::new(0.0, 0.5, 0.0));
        let mut want: Vec<Vec3> = [Vec3::ZERO, Vec3::X, Vec3::Y]
            .iter()
            .map(|v| world.transform_point3(*v) * 0.01)
            .collect();
        let mut got: Vec<Vec3> = parts[0].vertices.positions.clone();
        let key = |v: &Vec3| (v.x * 1e6) as i64 * 1_000_000_000 + (v.y * 1e6) as i64;
        want.sort_by_key(key);
        got.sort_by_key(key);
        assert_eq!(got.len(), 3);
        for (g, w) in got.iter().zip(&want) {
            // 1e-7 m: f32 rounding of centimetre values scaled to metres.
            assert!(g.distance(*w) < 1e-7, "t = {t}: {g} vs {w}");
        }
    }
}
