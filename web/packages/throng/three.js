// throng/three: a throng crowd inside a three.js scene, drawn by three's own WebGLRenderer, so
// the scene's camera, lights, shadows, fog, tone mapping and post-processing apply to it
// (docs/web.md "In three.js").
//
// One instanced Mesh per primitive and LOD. Their material is a MeshStandardMaterial patched to
// skin each vertex with throng's GLSL (the crowd's `glsl()`, adapter.glsl: the bone rows
// interpolated per layer and blended, GPU-timed rows derived from the record and a clock
// uniform); a patched MeshDepthMaterial casts the same skinned shadow. Transforms and records
// live in data textures indexed by instance (core.js keeps them in step with the crowd); the
// only per-instance attribute is the instance index, rewritten only when what is in view
// changes. update() culls every instance against the camera's frustum and picks each
// primitive's LOD by its projected simplification error, as throng's renderer does (WebGL2 has
// no compute shaders, so this runs on the CPU). An asset baked with a far tier draws instances
// past its mesh LODs as one camera-facing card each (one more instanced Mesh of two triangles,
// its material patched with the crowd's `farGlsl()`, adapter_far.glsl), lit by three's lights
// and casting a card's shadow towards them.
import {
  BufferAttribute,
  Color,
  DataTexture,
  DoubleSide,
  DynamicDrawUsage,
  FloatType,
  Group,
  InstancedBufferAttribute,
  InstancedBufferGeometry,
  Matrix4,
  Mesh,
  MeshDepthMaterial,
  MeshStandardMaterial,
  NearestFilter,
  RGBADepthPacking,
  RGBAFormat,
  RGBAIntegerFormat,
  SRGBColorSpace,
  Texture,
  Uint16BufferAttribute,
  UnsignedByteType,
  UnsignedIntType,
  Vector3,
} from "three";
import { CrowdTables } from "./core.js";

/** A three.js DataTexture over one of core.js's tables. */
function tableTexture(table) {
  const integer = table.data instanceof Uint32Array;
  const t = new DataTexture(table.data, table.width, table.height, integer ? RGBAIntegerFormat : RGBAFormat, integer ? UnsignedIntType : FloatType);
  if (integer) t.internalFormat = "RGBA32UI";
  t.minFilter = t.magFilter = NearestFilter;
  t.generateMipmaps = false;
  t.flipY = false;
  t.needsUpdate = true;
  return t;
}

/** Sends a table's pending changes through three's partial texture updates. */
function upload(texture, table) {
  if (table.all) {
    texture.clearUpdateRanges();
    texture.needsUpdate = true;
  } else if (table.ranges.length > 0) {
    for (const [start, count] of table.ranges) texture.addUpdateRange(start, count);
    texture.needsUpdate = true;
  }
}

/** A three.js DataTexture of RGBA8 texels, read unfiltered and unconverted (the far tier's
 *  atlases: its shader decodes sRGB itself). */
function byteTexture(data, width, height) {
  const t = new DataTexture(data, width, height, RGBAFormat, UnsignedByteType);
  t.minFilter = t.magFilter = NearestFilter;
  t.generateMipmaps = false;
  t.flipY = false;
  t.needsUpdate = true;
  return t;
}

// The card's vertex stage: placed and facing the pass's viewer (the camera, or the light in the
// shadow pass), its varyings written by throngFarCard; three lights in view space.
const CARD_VERTEX = `void main() {
\tvec3 throngCardAt = throngFarCard(projectionMatrix * viewMatrix * modelMatrix, normalMatrix);`;

/** Patches a built-in three.js material to draw throng's far-tier cards: `glsl` the crowd's
 *  vertex GLSL, `farGlsl` its card GLSL; the fragment keeps what the card covers (ordered
 *  dither), `lit` takes its albedo and normal. */
function card(material, glsl, farGlsl, uniforms, key, lit) {
  material.onBeforeCompile = (shader) => {
    Object.assign(shader.uniforms, uniforms);
    shader.vertexShader = shader.vertexShader
      .replace("#include <common>", `#include <common>\n${glsl}\n${farGlsl}`)
      .replace("void main() {", CARD_VERTEX)
      .replace("#include <begin_vertex>", "vec3 transformed = throngCardAt;");
    let f = shader.fragmentShader
      .replace("#include <common>", `#include <common>\n#define THRONG_FAR_FRAGMENT\n${farGlsl}`)
      .replace(
        "void main() {",
        "void main() {\n\tvec3 throngFarN;\n\tvec4 throngFarS = throngFarShown(throngFarN);\n\tif (!throngFarCovered(throngFarS.a)) discard;",
      );
    if (lit) {
      f = f
        .replace("#include <map_fragment>", "diffuseColor.rgb *= throngFarS.rgb;")
        .replace("#include <normal_fragment_begin>", "#include <normal_fragment_begin>\n\tnormal = throngFarN;\n\tnonPerturbedNormal = normal;");
    }
    shader.fragmentShader = f;
  };
  material.customProgramCacheKey = () => key;
  material.side = DoubleSide;
  return material;
}

/** Patches a built-in three.js material to skin with throng's GLSL; with `farGlsl` (a crowd
 *  with a far tier) it also leaves out the card's half of the crossfade's screen door. */
function skinned(material, glsl, uniforms, key, farGlsl) {
  material.onBeforeCompile = (shader) => {
    Object.assign(shader.uniforms, uniforms);
    const fade = farGlsl ? `\n#define THRONG_FAR_MESH\n${farGlsl}` : "";
    shader.vertexShader = shader.vertexShader
      .replace("#include <common>", `#include <common>\n${glsl}${fade}`)
      .replace(
        "void main() {",
        `void main() {\n\tmat4 throngM = throngSkin();${farGlsl ? "\n\tthrongFarShareV = throngFarShare(throngInstanceWorld);" : ""}`,
      )
      .replace(
        "#include <beginnormal_vertex>",
        "#include <beginnormal_vertex>\n\tobjectNormal = inverse(transpose(mat3(throngM))) * objectNormal;",
      )
      .replace("#include <begin_vertex>", "#include <begin_vertex>\n\ttransformed = (throngM * vec4(transformed, 1.0)).xyz;");
    if (farGlsl) {
      shader.fragmentShader = shader.fragmentShader
        .replace("#include <common>", `#include <common>\n#define THRONG_FAR_FRAGMENT\n#define THRONG_FAR_MESH\n${farGlsl}`)
        .replace("void main() {", "void main() {\n\tif (throngFarCardHalf(throngFarShareV)) discard;");
    }
  };
  material.customProgramCacheKey = () => key;
  return material;
}

/** A crowd from `loadCrowd` (package "throng") as a three.js object to add to a Scene. */
export class ThrongCrowd extends Group {
  /**
   * @param crowd a headless Crowd (`loadCrowd`, either timing); spawn, play and step it
   *   through its own API, then call update() before rendering.
   * @param options castShadow (true), receiveShadow (false), lodBias (1: the largest projected
   *   simplification error a LOD may make, pixels; 0 keeps LOD 0), farTier (true: an asset
   *   baked with a far tier draws instances whose tier texel covers at most lodBias pixels as
   *   cards; false keeps its coarsest mesh there), farFade (0.3: the width of the crossfade
   *   between mesh and card, a share of lodBias; 0 a hard switch).
   */
  constructor(crowd, options = {}) {
    super();
    this.crowd = crowd;
    this.lodBias = options.lodBias ?? 1;
    this.castShadowOption = options.castShadow ?? true;
    this.receiveShadowOption = options.receiveShadow ?? false;
    const tables = (this.tables = new CrowdTables(crowd, { farTier: options.farTier ?? true, farFade: options.farFade ?? 0.3 }));
    const bones = new DataTexture(tables.bones.data, tables.bones.width, tables.bones.height, RGBAFormat, FloatType);
    bones.minFilter = bones.magFilter = NearestFilter;
    bones.generateMipmaps = false;
    bones.needsUpdate = true;
    this.boneTexture = bones;
    this.uniforms = {
      throngBones: { value: bones },
      throngTransforms: { value: null },
      throngRecords: { value: null },
      throngClips: { value: tableTexture(tables.clips) },
      throngClipCount: { value: tables.clipCount },
      throngFrameTimes: { value: tables.gpuTimed ? tableTexture(tables.frameTimes) : null },
      throngClock: { value: 0 },
    };
    if (!tables.gpuTimed) {
      for (const k of ["throngFrameTimes", "throngClock"]) delete this.uniforms[k];
    }
    this.key = tables.gpuTimed ? "throng-skin-gpu" : "throng-skin-cpu";
    if (tables.far) {
      // the crossfade, which meshes and cards both read
      const far = tables.far;
      Object.assign(this.uniforms, {
        throngFarSphere: { value: Array.from(far.sphere) },
        throngFarEye: { value: [0, 0, 0, 0] },
        throngFarBand: { value: [far.error, 1, 0] },
        throngFarHeight: { value: 1 },
      });
      this.key += "-far";
    }
    this.parts = tables.meshes.map((m) => this.#part(m));
    this.card = tables.far ? this.#card(tables.far) : null;
    this.stats = tables.stats;
  }

  #card(far) {
    const tables = this.tables;
    const farGlsl = tables.farGlsl;
    const uniforms = {
      ...this.uniforms,
      throngFarColour: { value: byteTexture(far.colour, far.width, far.height) },
      throngFarSurface: { value: byteTexture(far.surface, far.width, far.height) },
      throngFarClips: { value: tableTexture(tables.farClips) },
      throngFarRows: { value: tableTexture(tables.farRows) },
      throngFarGrid: { value: Array.from(far.grid) },
      throngFarElevationBounds: { value: Array.from(far.elevationBounds) },
    };
    this.farUniforms = uniforms;
    const key = `${this.key}-card`;
    const material = card(new MeshStandardMaterial({ roughness: 1, metalness: 0 }), tables.glsl, farGlsl, uniforms, key, true);
    const depth = card(new MeshDepthMaterial({ depthPacking: RGBADepthPacking }), tables.glsl, farGlsl, uniforms, `${key}-depth`, false);
    const geometry = new InstancedBufferGeometry();
    // the corners come from gl_VertexID; three wants a position stream to size the draw
    geometry.setAttribute("position", new BufferAttribute(new Float32Array(12), 3));
    geometry.setIndex(new BufferAttribute(far.indices, 1));
    geometry.instanceCount = 0;
    const mesh = new Mesh(geometry, material);
    mesh.customDepthMaterial = depth;
    mesh.castShadow = this.castShadowOption;
    mesh.receiveShadow = this.receiveShadowOption;
    mesh.frustumCulled = false;
    mesh.visible = false;
    this.add(mesh);
    return mesh;
  }

  #part(m) {
    const { glsl, farGlsl } = this.tables;
    const color = new Color(m.baseColor[0], m.baseColor[1], m.baseColor[2]);
    const material = skinned(new MeshStandardMaterial({ color, roughness: 1, metalness: 0 }), glsl, this.uniforms, this.key, farGlsl);
    if (m.image) {
      const blob = new Blob([m.image.bytes], { type: m.image.mimeType });
      this.ready = (this.ready ?? Promise.resolve()).then(() =>
        createImageBitmap(blob, { imageOrientation: "none" }).then((bitmap) => {
          const map = new Texture(bitmap);
          map.colorSpace = SRGBColorSpace;
          map.flipY = false;
          map.needsUpdate = true;
          material.map = map;
          material.needsUpdate = true;
        }),
      );
    }
    const depth = skinned(new MeshDepthMaterial({ depthPacking: RGBADepthPacking }), glsl, this.uniforms, this.key, farGlsl);
    const shared = {
      position: new BufferAttribute(m.positions, 3),
      normal: new BufferAttribute(m.normals, 3),
      throngJoints: new Uint16BufferAttribute(m.joints, 4),
      throngWeights: new BufferAttribute(m.weights, 4),
    };
    if (m.uvs.length > 0) shared.uv = new BufferAttribute(m.uvs, 2);
    const lods = [];
    for (let l = 0; l < m.lods.length; l++) {
      const geometry = new InstancedBufferGeometry();
      for (const [name, attribute] of Object.entries(shared)) geometry.setAttribute(name, attribute);
      geometry.setIndex(new BufferAttribute(m.lods[l], 1));
      geometry.instanceCount = 0;
      const mesh = new Mesh(geometry, material);
      mesh.customDepthMaterial = depth;
      mesh.castShadow = this.castShadowOption;
      mesh.receiveShadow = this.receiveShadowOption;
      mesh.frustumCulled = false; // update() culls each instance
      mesh.visible = false;
      this.add(mesh);
      lods.push(mesh);
    }
    return { lods };
  }

  /**
   * Brings the GPU's copy up to the crowd's frame for `camera` (call after `crowd.frame(dt)`
   * and before rendering): each instance in the camera's frustum goes to the LOD whose
   * projected error stays within lodBias pixels at `viewportHeight` pixels of height. Uploads
   * only what changed; `stats.uploadedBytes` says how much.
   */
  update(camera, viewportHeight) {
    const tables = this.tables;
    if (tables.sync()) {
      this.uniforms.throngTransforms.value?.dispose();
      this.uniforms.throngRecords.value?.dispose();
      this.uniforms.throngTransforms.value = tableTexture(tables.transforms);
      this.uniforms.throngRecords.value = tableTexture(tables.records);
    }
    if (tables.gpuTimed) this.uniforms.throngClock.value = tables.clock;
    this.updateMatrixWorld();
    camera.updateMatrixWorld();
    const view = new Matrix4().multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse).multiply(this.matrixWorld);
    const eye = new Vector3().setFromMatrixPosition(camera.matrixWorld).applyMatrix4(new Matrix4().copy(this.matrixWorld).invert());
    const pixels = camera.isPerspectiveCamera ? viewportHeight / (2 * Math.tan((camera.fov * Math.PI) / 360)) : Infinity;
    tables.cull(view.elements, [eye.x, eye.y, eye.z], pixels, this.lodBias);
    const bytes = tables.pendingBytes();
    upload(this.uniforms.throngTransforms.value, tables.transforms);
    upload(this.uniforms.throngRecords.value, tables.records);
    tables.lists.forEach((part, p) =>
      part.forEach((list, l) => {
        show(this.parts[p].lods[l], list);
      }),
    );
    if (this.card) {
      this.uniforms.throngFarHeight.value = viewportHeight;
      this.uniforms.throngFarEye.value = tables.fade.eye;
      this.uniforms.throngFarBand.value = tables.fade.band;
      show(this.card, tables.farList);
    }
    tables.uploaded();
    tables.stats.uploadedBytes = bytes;
    this.stats = tables.stats;
  }

  /** Frees the GPU resources three made for this crowd (the Crowd itself stays the caller's). */
  dispose() {
    for (const u of Object.values(this.farUniforms ?? this.uniforms)) u.value?.dispose?.();
    if (this.card) {
      this.card.geometry.dispose();
      this.card.material.dispose();
      this.card.customDepthMaterial.dispose();
    }
    for (const part of this.parts) {
      for (const mesh of part.lods) {
        mesh.geometry.dispose();
        mesh.material.map?.dispose();
        mesh.material.dispose();
        mesh.customDepthMaterial.dispose();
      }
    }
  }
}

/** Hands a visible list to its Mesh: the instance attribute (a new buffer when the list's
 *  storage was replaced, else the changed range) and the instance count. */
function show(mesh, list) {
  const geometry = mesh.geometry;
  let ids = geometry.attributes.throngInstance;
  if (!ids || ids.array !== list.ids) {
    ids = new InstancedBufferAttribute(list.ids, 1);
    ids.setUsage(DynamicDrawUsage);
    geometry.setAttribute("throngInstance", ids);
    geometry.dispose(); // a new buffer: three sizes the draw afresh
  }
  if (list.changed && list.count > 0) {
    ids.clearUpdateRanges();
    ids.addUpdateRange(0, list.count);
    ids.needsUpdate = true;
  }
  geometry.instanceCount = list.count;
  mesh.visible = list.count > 0;
}
