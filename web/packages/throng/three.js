// throng/three: a throng crowd inside a three.js scene, drawn by three's own WebGLRenderer, so
// the scene's camera, lights, shadows, fog, tone mapping and post-processing apply to it
// (docs/web.md "In three.js").
//
// One InstancedMesh per primitive and LOD. Their material is a MeshStandardMaterial patched to
// skin each vertex from throng's bone rows (a float DataTexture: texel (3j + r, row) = row r of
// palette entry j's skin matrix), interpolating each layer's two rows and blending the layers as
// throng's texture path does; a patched MeshDepthMaterial casts the same skinned shadow. Per
// instance the CPU-timed record (4 layers of weight, frac, row) and the world matrix are
// instanced attributes, written for the instances in view only: update() culls every instance
// against the camera's frustum and picks each primitive's LOD by its projected simplification
// error, as throng's renderer does (WebGL2 has no compute shaders, so this runs on the CPU).
import {
  BufferAttribute,
  BufferGeometry,
  Color,
  DataTexture,
  DynamicDrawUsage,
  FloatType,
  Frustum,
  Group,
  InstancedBufferAttribute,
  InstancedMesh,
  Matrix4,
  MeshDepthMaterial,
  MeshStandardMaterial,
  NearestFilter,
  RGBADepthPacking,
  RGBAFormat,
  SRGBColorSpace,
  Sphere,
  Texture,
  Uint16BufferAttribute,
  Vector3,
} from "three";

// Skinning from the bone rows: the GLSL twin of throng's texture path (throng::skin). Layers with
// weight 0 are skipped; all weights 0 show the rest row 0; `row + 1` is read only with a frac
// above 0, which the runtime never gives a clip's last frame.
const SKIN_GLSL = /* glsl */ `
uniform highp sampler2D throngBones;
attribute vec4 throngJoints;
attribute vec4 throngWeights;
attribute vec4 throngLayer0;
attribute vec4 throngLayer1;
attribute vec4 throngLayer2;
attribute vec4 throngLayer3;
mat4 throngRow(int j, int row) {
  vec4 r0 = texelFetch(throngBones, ivec2(3 * j, row), 0);
  vec4 r1 = texelFetch(throngBones, ivec2(3 * j + 1, row), 0);
  vec4 r2 = texelFetch(throngBones, ivec2(3 * j + 2, row), 0);
  return mat4(r0.x, r1.x, r2.x, 0.0, r0.y, r1.y, r2.y, 0.0, r0.z, r1.z, r2.z, 0.0, r0.w, r1.w, r2.w, 1.0);
}
mat4 throngLayer(int j, vec4 l, int last) {
  int row = int(l.z);
  mat4 a = throngRow(j, row);
  if (l.y > 0.0) a = a * (1.0 - l.y) + throngRow(j, min(row + 1, last)) * l.y;
  return a * l.x;
}
mat4 throngEntry(int j) {
  if (throngLayer0.x + throngLayer1.x + throngLayer2.x + throngLayer3.x <= 0.0) return throngRow(j, 0);
  int last = textureSize(throngBones, 0).y - 1;
  mat4 m = mat4(0.0);
  if (throngLayer0.x > 0.0) m += throngLayer(j, throngLayer0, last);
  if (throngLayer1.x > 0.0) m += throngLayer(j, throngLayer1, last);
  if (throngLayer2.x > 0.0) m += throngLayer(j, throngLayer2, last);
  if (throngLayer3.x > 0.0) m += throngLayer(j, throngLayer3, last);
  return m;
}
mat4 throngSkin() {
  mat4 m = mat4(0.0);
  for (int i = 0; i < 4; i++) {
    if (throngWeights[i] > 0.0) m += throngEntry(int(throngJoints[i] + 0.5)) * throngWeights[i];
  }
  return m;
}
`;

/** Patches a built-in three.js material to skin from throng's bone rows. */
function skinned(material, bones) {
  material.onBeforeCompile = (shader) => {
    shader.uniforms.throngBones = bones;
    shader.vertexShader = shader.vertexShader
      .replace("#include <common>", `#include <common>\n${SKIN_GLSL}`)
      .replace("void main() {", "void main() {\n\tmat4 throngM = throngSkin();")
      .replace(
        "#include <beginnormal_vertex>",
        "#include <beginnormal_vertex>\n\tobjectNormal = inverse(transpose(mat3(throngM))) * objectNormal;",
      )
      .replace("#include <begin_vertex>", "#include <begin_vertex>\n\ttransformed = (throngM * vec4(transformed, 1.0)).xyz;");
  };
  material.customProgramCacheKey = () => "throng-skin";
  return material;
}

const LAYERS = ["throngLayer0", "throngLayer1", "throngLayer2", "throngLayer3"];

/** A crowd from `loadCrowd` (package "throng") as a three.js object to add to a Scene. */
export class ThrongCrowd extends Group {
  /**
   * @param crowd a headless Crowd (`loadCrowd`); spawn, play and step it through its own API.
   * @param options castShadow (true), receiveShadow (false), lodBias (1: the largest projected
   *   simplification error a LOD may make, pixels; 0 keeps LOD 0), capacity (instances to size
   *   the buffers for; they grow as needed).
   */
  constructor(crowd, options = {}) {
    super();
    this.crowd = crowd;
    this.lodBias = options.lodBias ?? 1;
    this.castShadowOption = options.castShadow ?? true;
    this.receiveShadowOption = options.receiveShadow ?? false;
    const rows = crowd.boneRows();
    const texture = new DataTexture(rows.data, rows.width, rows.height, RGBAFormat, FloatType);
    texture.minFilter = texture.magFilter = NearestFilter;
    texture.generateMipmaps = false;
    texture.needsUpdate = true;
    this.boneTexture = texture;
    this.bones = { value: texture };
    const b = crowd.poseBounds();
    this.center = new Vector3((b[0] + b[3]) / 2, (b[1] + b[4]) / 2, (b[2] + b[5]) / 2);
    this.extent = Math.hypot(b[3] - b[0], b[4] - b[1], b[5] - b[2]);
    this.radius = this.extent / 2;
    this.capacity = 0;
    this.parts = crowd.meshes().map((m) => this.#part(m));
    this.#grow(Math.max(options.capacity ?? 256, crowd.count));
    this.stats = { visible: 0, drawn: 0, perLod: [] };
  }

  #part(m) {
    const color = new Color(m.baseColor[0], m.baseColor[1], m.baseColor[2]);
    const material = skinned(new MeshStandardMaterial({ color, roughness: 1, metalness: 0 }), this.bones);
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
    const depth = skinned(new MeshDepthMaterial({ depthPacking: RGBADepthPacking }), this.bones);
    const shared = {
      position: new BufferAttribute(m.positions, 3),
      normal: new BufferAttribute(m.normals, 3),
      throngJoints: new Uint16BufferAttribute(m.joints, 4),
      throngWeights: new BufferAttribute(m.weights, 4),
    };
    if (m.uvs.length > 0) shared.uv = new BufferAttribute(m.uvs, 2);
    const lods = [];
    for (let l = 0; l < m.lods.length; l++) {
      const geometry = new BufferGeometry();
      for (const [name, attribute] of Object.entries(shared)) geometry.setAttribute(name, attribute);
      geometry.setIndex(new BufferAttribute(m.lods[l], 1));
      const mesh = new InstancedMesh(geometry, material, 1);
      mesh.customDepthMaterial = depth;
      mesh.castShadow = this.castShadowOption;
      mesh.receiveShadow = this.receiveShadowOption;
      mesh.frustumCulled = false; // update() culls each instance
      mesh.count = 0;
      this.add(mesh);
      lods.push({ mesh, error: m.lodErrors[l] });
    }
    return { lods };
  }

  #grow(n) {
    if (n <= this.capacity) return;
    const capacity = Math.max(n, Math.ceil(this.capacity * 1.5));
    for (const part of this.parts) {
      for (const { mesh } of part.lods) {
        mesh.instanceMatrix = new InstancedBufferAttribute(new Float32Array(capacity * 16), 16);
        mesh.instanceMatrix.setUsage(DynamicDrawUsage);
        for (const name of LAYERS) {
          const a = new InstancedBufferAttribute(new Float32Array(capacity * 4), 4);
          a.setUsage(DynamicDrawUsage);
          mesh.geometry.setAttribute(name, a);
        }
        mesh.geometry.dispose(); // new buffers: three uploads them afresh
      }
    }
    this.capacity = capacity;
  }

  /**
   * Writes the crowd's instances for `camera` (call after the crowd's frame and before
   * rendering): each instance in the camera's frustum goes to the LOD whose projected error
   * stays within lodBias pixels at `viewportHeight` pixels of height.
   */
  update(camera, viewportHeight) {
    const crowd = this.crowd;
    const n = crowd.count;
    this.#grow(n);
    const records = crowd.records();
    const matrices = crowd.instanceMatrices();
    this.updateMatrixWorld();
    camera.updateMatrixWorld();
    const view = new Matrix4().multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);
    const frustum = new Frustum().setFromProjectionMatrix(view.multiply(this.matrixWorld));
    const eye = new Vector3().setFromMatrixPosition(camera.matrixWorld).applyMatrix4(new Matrix4().copy(this.matrixWorld).invert());
    const pixels = camera.isPerspectiveCamera ? viewportHeight / (2 * Math.tan((camera.fov * Math.PI) / 360)) : Infinity;
    const counts = this.parts.map((p) => p.lods.map(() => 0));
    const m = new Matrix4();
    const sphere = new Sphere();
    let visible = 0;
    for (let i = 0; i < n; i++) {
      m.fromArray(matrices, i * 16);
      sphere.center.copy(this.center).applyMatrix4(m);
      sphere.radius = this.radius * m.getMaxScaleOnAxis();
      if (!frustum.intersectsSphere(sphere)) continue;
      visible++;
      const distance = Math.max(sphere.center.distanceTo(eye) - sphere.radius, 1e-6);
      const perUnit = pixels / distance;
      for (let p = 0; p < this.parts.length; p++) {
        const lods = this.parts[p].lods;
        let l = 0;
        while (l + 1 < lods.length && this.lodBias > 0 && lods[l + 1].error * this.extent * m.getMaxScaleOnAxis() * perUnit <= this.lodBias) l++;
        const mesh = lods[l].mesh;
        const slot = counts[p][l]++;
        mesh.instanceMatrix.array.set(matrices.subarray(i * 16, i * 16 + 16), slot * 16);
        for (let k = 0; k < 4; k++) {
          mesh.geometry.attributes[LAYERS[k]].array.set(records.subarray(i * 16 + k * 4, i * 16 + k * 4 + 4), slot * 4);
        }
      }
    }
    let drawn = 0;
    for (let p = 0; p < this.parts.length; p++) {
      this.parts[p].lods.forEach(({ mesh }, l) => {
        const c = counts[p][l];
        mesh.count = c;
        mesh.visible = c > 0;
        drawn += c > 0 ? 1 : 0;
        if (c === 0) return;
        mesh.instanceMatrix.clearUpdateRanges();
        mesh.instanceMatrix.addUpdateRange(0, c * 16);
        mesh.instanceMatrix.needsUpdate = true;
        for (const name of LAYERS) {
          const a = mesh.geometry.attributes[name];
          a.clearUpdateRanges();
          a.addUpdateRange(0, c * 4);
          a.needsUpdate = true;
        }
      });
    }
    this.stats = { visible, drawn, perLod: counts };
  }

  /** Frees the GPU resources three made for this crowd (the Crowd itself stays the caller's). */
  dispose() {
    this.boneTexture.dispose();
    for (const part of this.parts) {
      for (const { mesh } of part.lods) {
        mesh.geometry.dispose();
        mesh.material.map?.dispose();
        mesh.material.dispose();
        mesh.customDepthMaterial.dispose();
        mesh.dispose();
      }
    }
  }
}
