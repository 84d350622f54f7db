// throng/babylon: a throng crowd inside a Babylon.js scene, drawn by Babylon's own WebGL2
// engine with its lights, fog, image processing and post-processes (docs/web.md "In
// Babylon.js"). Unlike Babylon's BakedVertexAnimationManager it interpolates between baked
// frames, blends two clips (crossfades) and plays either timing.
//
// One thin-instanced Mesh per primitive and LOD with a StandardMaterial that carries a
// MaterialPlugin: the plugin injects throng's GLSL (the crowd's `glsl()`, adapter.glsl) and
// skins `positionUpdated` and `normalUpdated` before Babylon applies the world matrix. The
// tables (transforms, records, clips, frame times) are RawTextures kept in step by core.js; the
// only per-instance attribute is the instance index, sent only when what is in view changes.
// Babylon's public API updates a RawTexture whole, so a frame in which some record changed
// re-sends the record table; a frame without changes sends nothing.
//
// An asset baked with a far tier draws instances past its mesh LODs as one camera-facing card
// each: one more thin-instanced Mesh of two triangles whose plugin injects the crowd's
// `farGlsl()` (adapter_far.glsl): the card faces the pass's viewer (the camera, or the light in
// a ShadowGenerator's pass, which sets the scene's matrices to the light's), keeps the texels its
// tiles cover and hands Babylon's lighting their linear colour and normal.
//
// The adapter takes Babylon's namespace as an argument (`import * as BABYLON from
// "@babylonjs/core"`, or the `babylonjs` UMD global), so the package imports no Babylon build
// of its own.
import { CrowdTables } from "./core.js";

// The plugin class for one adapter (Babylon asks for its code inside the base constructor, so
// the adapter comes in through the closure, not a field).
function pluginClass(BABYLON, adapter) {
  return class ThrongPlugin extends BABYLON.MaterialPluginBase {
    constructor(material) {
      super(material, "Throng", 200, {});
      this._enable(true);
    }

    getClassName() {
      return "ThrongPlugin";
    }

    isCompatible(shaderLanguage) {
      return shaderLanguage === BABYLON.ShaderLanguage.GLSL;
    }

    getAttributes(attributes) {
      attributes.push("throngInstance", "throngJoints", "throngWeights");
    }

    getSamplers(samplers) {
      samplers.push("throngBones", "throngTransforms", "throngRecords", "throngClips");
      if (adapter.tables.gpuTimed) samplers.push("throngFrameTimes");
    }

    getUniforms() {
      const u = adapter.tables.gpuTimed ? ["throngClipCount", "throngClock"] : ["throngClipCount"];
      if (adapter.tables.far) u.push("throngFarSphere", "throngFarEye", "throngFarBand", "throngFarHeight");
      return { externalUniforms: u };
    }

    bindForSubMesh(_ubo, _scene, _engine, subMesh) {
      const effect = subMesh.effect;
      const a = adapter;
      const t = a.tables;
      for (const [name, texture] of Object.entries(a.textures)) if (texture) effect.setTexture(name, texture);
      effect.setInt("throngClipCount", t.clipCount);
      if (t.gpuTimed) effect.setUInt("throngClock", t.clock);
      if (t.far) {
        // the crossfade, which meshes and cards both read
        const [s, e, b] = [t.far.sphere, t.fade.eye, t.fade.band];
        effect.setFloat4("throngFarSphere", s[0], s[1], s[2], s[3]);
        effect.setFloat4("throngFarEye", e[0], e[1], e[2], e[3]);
        effect.setFloat3("throngFarBand", b[0], b[1], b[2]);
        effect.setFloat("throngFarHeight", a.viewportHeight ?? 1);
      }
    }

    getCustomCode(shaderType) {
      const far = adapter.tables.farGlsl;
      if (shaderType !== "vertex") {
        // with a far tier the mesh leaves out the card's half of the crossfade's screen door
        if (!far) return null;
        return {
          CUSTOM_FRAGMENT_DEFINITIONS: `#define THRONG_FAR_FRAGMENT\n#define THRONG_FAR_MESH\n${far}`,
          CUSTOM_FRAGMENT_MAIN_BEGIN: "if (throngFarCardHalf(throngFarShareV)) discard;",
        };
      }
      return {
        CUSTOM_VERTEX_DEFINITIONS: far ? `${adapter.tables.glsl}\n#define THRONG_FAR_MESH\n${far}` : adapter.tables.glsl,
        CUSTOM_VERTEX_UPDATE_POSITION:
          "mat4 throngM = throngSkin();\npositionUpdated = (throngM * vec4(positionUpdated, 1.0)).xyz;" +
          (far ? "\nthrongFarShareV = throngFarShare(throngInstanceWorld);" : ""),
        CUSTOM_VERTEX_UPDATE_NORMAL: "#ifdef NORMAL\nnormalUpdated = inverse(transpose(mat3(throngM))) * normalUpdated;\n#endif",
      };
    }
  };
}

// The far-tier card's plugin: the skinning plugin's tables and the tier's.
function cardPluginClass(BABYLON, adapter) {
  const Base = pluginClass(BABYLON, adapter);
  return class ThrongCardPlugin extends Base {
    getClassName() {
      return "ThrongCardPlugin";
    }

    getAttributes(attributes) {
      attributes.push("throngInstance");
    }

    getSamplers(samplers) {
      super.getSamplers(samplers);
      samplers.push("throngFarColour", "throngFarSurface", "throngFarClips", "throngFarRows");
    }

    getUniforms() {
      const u = super.getUniforms();
      u.externalUniforms.push("throngFarGrid", "throngFarElevationBounds");
      return u;
    }

    bindForSubMesh(ubo, scene, engine, subMesh) {
      super.bindForSubMesh(ubo, scene, engine, subMesh);
      const effect = subMesh.effect;
      const a = adapter;
      const far = a.tables.far;
      for (const [name, texture] of Object.entries(a.farTextures)) effect.setTexture(name, texture);
      effect.setUInt4("throngFarGrid", far.grid[0], far.grid[1], far.grid[2], far.grid[3]);
      effect.setFloatArray4("throngFarElevationBounds", far.elevationBounds);
    }

    getCustomCode(shaderType) {
      const far = adapter.tables.farGlsl;
      if (shaderType === "vertex") {
        return {
          CUSTOM_VERTEX_DEFINITIONS: `${adapter.tables.glsl}\n${far}`,
          // Babylon lights in world space: the root's normal matrix
          CUSTOM_VERTEX_UPDATE_POSITION: "positionUpdated = throngFarCard(viewProjection * world, transpose(inverse(mat3(world))));",
        };
      }
      return {
        CUSTOM_FRAGMENT_DEFINITIONS: `#define THRONG_FAR_FRAGMENT\n${far}`,
        CUSTOM_FRAGMENT_MAIN_BEGIN: "vec3 throngFarN;\nvec4 throngFarS = throngFarShown(throngFarN);\nif (!throngFarCovered(throngFarS.a)) discard;",
        // linear albedo, as Babylon hands the meshes' sRGB textures to the same code
        CUSTOM_FRAGMENT_UPDATE_DIFFUSE: "baseColor.rgb = throngFarS.rgb;\nnormalW = throngFarN;",
      };
    }
  };
}

/** A crowd from `loadCrowd` (package "throng") drawn in a Babylon.js scene. */
export class ThrongBabylonCrowd {
  /**
   * @param BABYLON Babylon's namespace (`import * as BABYLON from "@babylonjs/core"` or the
   *   `babylonjs` global).
   * @param scene the Babylon Scene to draw in.
   * @param crowd a headless Crowd (`loadCrowd`, either timing); spawn, play and step it through
   *   its own API, then call update() before the scene renders.
   * @param options lodBias (1: the largest projected simplification error a LOD may make,
   *   pixels; 0 keeps LOD 0), name ("throng"), farTier (true: an asset baked with a far tier
   *   draws instances whose tier texel covers at most lodBias pixels as cards; false keeps its
   *   coarsest mesh there), farFade (0.3: the width of the crossfade between mesh and card, a
   *   share of lodBias; 0 a hard switch).
   */
  constructor(BABYLON, scene, crowd, options = {}) {
    this.BABYLON = BABYLON;
    this.scene = scene;
    this.crowd = crowd;
    this.lodBias = options.lodBias ?? 1;
    const name = options.name ?? "throng";
    const tables = (this.tables = new CrowdTables(crowd, { farTier: options.farTier ?? true, farFade: options.farFade ?? 0.3 }));
    this.textures = {
      throngBones: this.#texture(tables.bones.data, tables.bones.width, tables.bones.height),
      throngTransforms: null,
      throngRecords: null,
      throngClips: this.#tableTexture(tables.clips),
    };
    tables.clips.uploaded(); // sent as the texture was made; it never changes
    if (tables.gpuTimed) {
      this.textures.throngFrameTimes = this.#tableTexture(tables.frameTimes);
      tables.frameTimes.uploaded();
    }
    this.root = new BABYLON.TransformNode(name, scene);
    if (!scene.useRightHandedSystem) {
      // glTF's axes are right-handed: in a left-handed scene (Babylon's default) mirror the
      // crowd as Babylon's glTF loader mirrors its root, so the crowd stands as a glTF of the
      // same scene would (Babylon flips the winding of a mirrored mesh itself)
      this.root.rotationQuaternion = BABYLON.Quaternion.RotationAxis(BABYLON.Axis.Y, Math.PI);
      this.root.scaling = new BABYLON.Vector3(1, 1, -1);
    }
    const Plugin = pluginClass(BABYLON, this);
    this.parts = tables.meshes.map((m, p) => {
      const material = new BABYLON.StandardMaterial(`${name}-${p}`, scene);
      material.diffuseColor = new BABYLON.Color3(m.baseColor[0], m.baseColor[1], m.baseColor[2]);
      material.specularColor = new BABYLON.Color3(0, 0, 0);
      // glTF's triangles wind counter-clockwise; say so as Babylon's glTF loader does (in a
      // left-handed scene the mirrored root turns them, and Babylon culls the mirror's way)
      material.sideOrientation = scene.useRightHandedSystem ? BABYLON.Material.CounterClockWiseSideOrientation : BABYLON.Material.ClockWiseSideOrientation;
      if (m.image) {
        const url = URL.createObjectURL(new Blob([m.image.bytes], { type: m.image.mimeType }));
        // glTF's v runs down the image: no flip
        material.diffuseTexture = new BABYLON.Texture(url, scene, { invertY: false, mimeType: m.image.mimeType });
      }
      new Plugin(material);
      // a ShadowGenerator draws casters with its own depth shader; the wrapper makes it use this
      // material's vertex code instead, so the shadow is skinned as the character is
      material.shadowDepthWrapper = new BABYLON.ShadowDepthWrapper(material, scene);
      const joints = Float32Array.from(m.joints);
      const lods = m.lods.map((indices, l) => {
        const mesh = new BABYLON.Mesh(`${name}-${p}-lod${l}`, scene);
        mesh.parent = this.root;
        const data = new BABYLON.VertexData();
        data.positions = m.positions;
        data.normals = m.normals;
        if (m.uvs.length > 0) data.uvs = m.uvs;
        data.indices = indices;
        data.applyToMesh(mesh, false);
        mesh.setVerticesData("throngJoints", joints, false, 4);
        mesh.setVerticesData("throngWeights", m.weights, false, 4);
        mesh.material = material;
        mesh.alwaysSelectAsActiveMesh = true; // update() culls each instance
        mesh.doNotSyncBoundingInfo = true;
        mesh.isVisible = false;
        return mesh;
      });
      return { lods, material };
    });
    this.card = tables.far ? this.#card(name) : null;
  }

  #card(name) {
    const B = this.BABYLON;
    const { far, farClips, farRows } = this.tables;
    const bytes = (data) =>
      new B.RawTexture(data, far.width, far.height, B.Constants.TEXTUREFORMAT_RGBA, this.scene, false, false, B.Constants.TEXTURE_NEAREST_SAMPLINGMODE, B.Constants.TEXTURETYPE_UNSIGNED_BYTE);
    this.farTextures = {
      throngFarColour: bytes(far.colour),
      throngFarSurface: bytes(far.surface),
      throngFarClips: this.#tableTexture(farClips),
      throngFarRows: this.#tableTexture(farRows),
    };
    farClips.uploaded();
    farRows.uploaded();
    const material = new B.StandardMaterial(`${name}-card`, this.scene);
    material.diffuseColor = new B.Color3(1, 1, 1);
    material.specularColor = new B.Color3(0, 0, 0);
    material.backFaceCulling = false; // a mirrored root turns the card's winding
    const Plugin = cardPluginClass(B, this);
    new Plugin(material);
    material.shadowDepthWrapper = new B.ShadowDepthWrapper(material, this.scene);
    const mesh = new B.Mesh(`${name}-card`, this.scene);
    mesh.parent = this.root;
    const data = new B.VertexData();
    // the corners come from gl_VertexID; the streams only size the draw
    data.positions = new Float32Array(12);
    data.normals = new Float32Array([0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1]);
    data.indices = Array.from(far.indices);
    data.applyToMesh(mesh, false);
    mesh.material = material;
    mesh.alwaysSelectAsActiveMesh = true;
    mesh.doNotSyncBoundingInfo = true;
    mesh.isVisible = false;
    return { mesh, material };
  }

  #texture(data, width, height) {
    const B = this.BABYLON;
    const integer = data instanceof Uint32Array;
    return new B.RawTexture(
      data,
      width,
      height,
      integer ? B.Constants.TEXTUREFORMAT_RGBA_INTEGER : B.Constants.TEXTUREFORMAT_RGBA,
      this.scene,
      false,
      false,
      B.Constants.TEXTURE_NEAREST_SAMPLINGMODE,
      integer ? B.Constants.TEXTURETYPE_UNSIGNED_INTEGER : B.Constants.TEXTURETYPE_FLOAT,
    );
  }

  #tableTexture(table) {
    return this.#texture(table.data, table.width, table.height);
  }

  /** Every mesh of the crowd (per primitive, per LOD), e.g. for `shadowGenerator.addShadowCaster`
   *  or `mesh.receiveShadows`. */
  meshes() {
    const all = this.parts.flatMap((p) => p.lods);
    if (this.card) all.push(this.card.mesh);
    return all;
  }

  /** Resolves when the materials' textures have loaded. */
  whenReady() {
    return this.scene.whenReadyAsync();
  }

  /**
   * Brings Babylon's copy up to the crowd's frame for `camera` (call after `crowd.frame(dt)`
   * and before `scene.render()`): each instance in the camera's frustum goes to the LOD whose
   * projected error stays within lodBias pixels at `viewportHeight` pixels of height.
   * `stats.uploadedBytes` says what it sent.
   */
  update(camera, viewportHeight) {
    const B = this.BABYLON;
    const tables = this.tables;
    const grown = tables.sync();
    if (grown) {
      this.textures.throngTransforms?.dispose();
      this.textures.throngRecords?.dispose();
      this.textures.throngTransforms = this.#tableTexture(tables.transforms);
      this.textures.throngRecords = this.#tableTexture(tables.records);
      this.#resize();
    }
    if (tables.placement !== this.placed) {
      this.placed = tables.placement;
      this.#bound();
    }
    // Babylon's matrices are row-vector (v · M), so world · view · projection here has the
    // memory layout of the column-major clip-from-crowd matrix core.js takes
    this.root.computeWorldMatrix(true);
    const viewProjection = this.root.getWorldMatrix().multiply(camera.getViewMatrix()).multiply(camera.getProjectionMatrix());
    const inverse = this.root.getWorldMatrix().clone().invert();
    const eye = B.Vector3.TransformCoordinates(camera.globalPosition, inverse);
    const fov = camera.fovMode === B.Camera.FOVMODE_VERTICAL_FIXED ? camera.fov : camera.fov / this.scene.getEngine().getAspectRatio(camera);
    const pixels = camera.mode === B.Camera.PERSPECTIVE_CAMERA ? viewportHeight / (2 * Math.tan(fov / 2)) : Infinity;
    tables.cull(viewProjection.m, [eye.x, eye.y, eye.z], pixels, this.lodBias);
    this.viewportHeight = viewportHeight;
    let bytes = tables.listBytes();
    const all = [
      ["throngTransforms", tables.transforms],
      ["throngRecords", tables.records],
      ["throngClips", tables.clips],
      ["throngFrameTimes", tables.frameTimes],
    ];
    for (const [name, table] of all) {
      if (!table || !(table.all || table.ranges.length > 0)) continue;
      // a RawTexture is sent whole; a new one was sent when it was made
      if (!grown) this.textures[name].update(table.data);
      bytes += table.data.length * 4;
    }
    for (const [mesh, list] of this.#meshLists()) {
      if (list.changed && list.count > 0) mesh.thinInstancePartialBufferUpdate("throngInstance", list.count, 0);
      mesh.thinInstanceCount = list.count;
      mesh.isVisible = list.count > 0;
    }
    tables.uploaded();
    tables.stats.uploadedBytes = bytes;
    this.stats = tables.stats;
  }

  /** Gives every mesh the crowd's bounds (each instance's sphere), so that what Babylon
   *  derives from them — a directional light's shadow extents, picking — covers the crowd. */
  #bound() {
    const B = this.BABYLON;
    const s = this.tables.spheres;
    const min = new B.Vector3(Infinity, Infinity, Infinity);
    const max = new B.Vector3(-Infinity, -Infinity, -Infinity);
    for (let i = 0; i + 3 < s.length; i += 4) {
      const r = this.tables.radius * s[i + 3];
      min.minimizeInPlaceFromFloats(s[i] - r, s[i + 1] - r, s[i + 2] - r);
      max.maximizeInPlaceFromFloats(s[i] + r, s[i + 1] + r, s[i + 2] + r);
    }
    if (!(min.x <= max.x)) return; // no instance
    for (const mesh of this.meshes()) mesh.setBoundingInfo(new B.BoundingInfo(min, max));
  }

  /** New per-instance buffers after the tables grew: identity matrices for Babylon's thin
   *  instances (the world matrix comes from the transform table) and the instance lists. */
  #resize() {
    const capacity = this.tables.capacity;
    const identity = new Float32Array(capacity * 16);
    for (let i = 0; i < capacity; i++) identity[i * 16] = identity[i * 16 + 5] = identity[i * 16 + 10] = identity[i * 16 + 15] = 1;
    for (const [mesh, list] of this.#meshLists()) {
      mesh.thinInstanceSetBuffer("matrix", identity, 16, true);
      mesh.thinInstanceRegisterAttribute("throngInstance", 1);
      mesh.thinInstanceSetBuffer("throngInstance", list.ids, 1, false);
      mesh.thinInstanceCount = 0;
    }
  }

  /** Each Mesh with the visible list it draws: per primitive and LOD, then the card's. */
  #meshLists() {
    const pairs = this.tables.lists.flatMap((part, p) => part.map((list, l) => [this.parts[p].lods[l], list]));
    if (this.card) pairs.push([this.card.mesh, this.tables.farList]);
    return pairs;
  }

  /** Frees what Babylon made for this crowd (the Crowd itself stays the caller's). */
  dispose() {
    for (const t of Object.values(this.textures)) t?.dispose();
    for (const t of Object.values(this.farTextures ?? {})) t.dispose();
    if (this.card) {
      this.card.mesh.dispose();
      this.card.material.dispose();
    }
    for (const part of this.parts) {
      for (const mesh of part.lods) mesh.dispose();
      part.material.diffuseTexture?.dispose();
      part.material.dispose();
    }
    this.root.dispose();
  }
}
