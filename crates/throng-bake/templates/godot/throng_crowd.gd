# A MultiMesh crowd of throng's exported character, written by `throng export --format godot`.
# Builds the MultiMesh at start: one instance per grid cell, each playing a clip from its own
# time offset (INSTANCE_CUSTOM, see throng_vat.gdshader); every surface gets the shader with its
# own albedo. use_bones = true draws with throng_bones.gdshader and the bind-space mesh instead.
extends MultiMeshInstance3D

@export var count := {{INSTANCES}}
@export var spacing := {{SPACING}}
@export var use_bones := false
@export var blend_every := 4 # every n-th instance blends two clips half and half

const FOLDER := "res://{{FOLDER}}/"

func _ready() -> void:
	var mesh_file := "{{BIND_MESH}}" if use_bones else "{{MESH}}"
	var mesh := _first_mesh((load(FOLDER + mesh_file) as PackedScene).instantiate())
	if mesh == null:
		push_error("throng: no mesh in " + mesh_file)
		return
	var shader: Shader = load(FOLDER + ("throng_bones.gdshader" if use_bones else "throng_vat.gdshader"))
	for s in mesh.get_surface_count():
		var source := mesh.surface_get_material(s)
		var m := ShaderMaterial.new()
		m.shader = shader
		if use_bones:
			m.set_shader_parameter("bone_texture", load(FOLDER + "{{BONES}}"))
			m.set_shader_parameter("influence_texture", load(FOLDER + "{{INFLUENCES}}"))
		else:
			m.set_shader_parameter("vat_texture", load(FOLDER + "{{TEXTURE}}"))
		if source is BaseMaterial3D:
			m.set_shader_parameter("albedo_texture", source.albedo_texture)
			m.set_shader_parameter("albedo_color", source.albedo_color)
		mesh.surface_set_material(s, m)
	# The animation leaves the rest pose's box: cull with the box of every frame.
	mesh.custom_aabb = AABB(Vector3({{AABB_MIN}}), Vector3({{AABB_SIZE}}))
	var mm := MultiMesh.new()
	mm.transform_format = MultiMesh.TRANSFORM_3D
	mm.use_custom_data = true
	mm.mesh = mesh
	mm.instance_count = count
	var side := int(ceil(sqrt(float(count))))
	var rng := RandomNumberGenerator.new()
	rng.seed = 1
	for i in count:
		mm.set_instance_transform(i, Transform3D(Basis(), Vector3((i % side) * spacing, 0.0, (i / side) * spacing)))
		var clip_a := i % {{CLIP_COUNT}}
		var clip_b := (i + 1) % {{CLIP_COUNT}}
		var blend := 0.5 if blend_every > 0 and i % blend_every == 0 else 0.0
		mm.set_instance_custom_data(i, Color(clip_a + 256 * clip_b, rng.randf() * 10.0, 1.0, blend))
	multimesh = mm

func _first_mesh(node: Node) -> ArrayMesh:
	if node is MeshInstance3D:
		return (node as MeshInstance3D).mesh as ArrayMesh
	for child in node.get_children():
		var m := _first_mesh(child)
		if m != null:
			return m
	return null
