// The engine-neutral half of throng's adapters (throng/three, throng/babylon): the tables a
// crowd's shader reads (adapter.glsl: transforms, records, clips, frame times) kept in step with
// the crowd, and the per-instance culling and LOD choice. An engine's adapter turns the tables
// into textures, the visible lists into per-instance attributes, and uploads what `sync` and
// `cull` report as changed.
//
// What travels per frame: CPU-timed, every record (64 B an instance); GPU-timed, only the
// records the runtime rewrote (a play, a crossfade) and the clock, nothing else until the
// instances move; the visible lists (4 B a drawn instance) only when the camera or the
// placement changes what is in view.

const TEXELS = 4; // per instance, in the transform and record tables

/** A table of `texels` RGBA texels, `width` wide: the storage behind one data texture. */
export class Table {
  constructor(ArrayType, width, texels) {
    this.ArrayType = ArrayType;
    this.width = width;
    this.height = Math.max(1, Math.ceil(texels / width));
    this.data = new ArrayType(this.width * this.height * 4);
    /** Changed ranges since the engine last uploaded, in components: [start, count]. */
    this.ranges = [];
    /** The whole table changed (or was replaced): upload it all. */
    this.all = true;
  }

  /** Marks `count` components from `start` as changed, one range per texture row (an engine
   *  uploads each range as one row of texels). */
  touch(start, count) {
    if (this.all) return;
    const row = this.width * 4;
    for (let end = start + count; start < end; ) {
      const stop = Math.min(end, (Math.floor(start / row) + 1) * row);
      this.ranges.push([start, stop - start]);
      start = stop;
    }
  }

  /** Bytes the pending upload sends. */
  pendingBytes() {
    const words = this.all ? this.data.length : this.ranges.reduce((s, r) => s + r[1], 0);
    return words * 4;
  }

  uploaded() {
    this.ranges.length = 0;
    this.all = false;
  }
}

/** A visible list: instance indices (Float32: exact below 2^24) and what `cull` compares. */
function list() {
  return { ids: null, scratch: null, count: 0, changed: true };
}

/**
 * The per-crowd state both adapters share. `crowd` is a headless Crowd (`loadCrowd`); the
 * caller keeps stepping it (`crowd.frame(dt)`), then calls `sync()` and `cull(...)` before
 * drawing. `farTier` (default true): draw the asset's far tier, when it has one, as cards
 * past the mesh LODs (`farList`); false keeps the coarsest mesh there. `farFade` (default 0.3,
 * as throng's renderer): the width of the crossfade between mesh and card, a share of the LOD
 * bias (0: a hard switch).
 */
export class CrowdTables {
  constructor(crowd, { farTier = true, farFade = 0.3 } = {}) {
    const Crowd = crowd.constructor;
    this.crowd = crowd;
    this.gpuTimed = crowd.gpuTimed;
    this.width = Crowd.tableWidth();
    this.glsl = (this.gpuTimed ? "#define THRONG_GPU_TIMED\n" : "") + Crowd.glsl();
    this.bones = crowd.boneRows();
    this.meshes = crowd.meshes();
    const b = crowd.poseBounds();
    this.center = [(b[0] + b[3]) / 2, (b[1] + b[4]) / 2, (b[2] + b[5]) / 2];
    this.extent = Math.hypot(b[3] - b[0], b[4] - b[1], b[5] - b[2]);
    this.radius = this.extent / 2;
    // both timings read the clip table (a layer's row taps follow its clip's interpolation);
    // only GPU-timed rows derive from the frame times
    const t = crowd.clipTable();
    this.clipCount = t.clips.length / 4;
    this.clips = new Table(Uint32Array, this.width, this.clipCount);
    this.clips.data.set(t.clips);
    if (this.gpuTimed) {
      this.frameTimes = new Table(Uint32Array, this.width, Math.ceil(t.frameTimes.length / 4));
      this.frameTimes.data.set(t.frameTimes);
    }
    this.capacity = 0;
    this.placement = -1;
    this.spheres = new Float32Array(0);
    /** Per primitive and LOD: the visible instances' indices (Float32: exact below 2^24). */
    this.lists = this.meshes.map((m) => m.lods.map(list));
    // The far tier (Crowd.farTier): its tables, and the list of instances drawn as cards.
    this.far = null;
    if (farTier && typeof crowd.farTier === "function") {
      try {
        this.far = crowd.farTier();
      } catch (e) {
        console.warn(`throng: ${e.message}; the far level draws the coarsest mesh instead`);
      }
    }
    if (this.far) {
      this.farGlsl = Crowd.farGlsl();
      this.farClips = new Table(Uint32Array, this.width, this.far.clips.length / 4);
      this.farClips.data.set(this.far.clips);
      this.farRows = new Table(Float32Array, this.width, this.far.rows.length / 4);
      this.farRows.data.set(this.far.rows);
      this.farList = list();
      this.farFade = Math.min(Math.max(Number(farFade) || 0, 0), 1);
      /** What the shaders' crossfade reads (adapter_far.glsl throngFarShare), set by `cull`:
       *  the eye in crowd space and the pixels a length of 1 covers at a distance of 1 (0: no
       *  crossfade), and one tier texel (file units), the LOD bias and the crossfade's width
       *  (pixels). */
      this.fade = { eye: [0, 0, 0, 0], band: [this.far.error, 1, 0] };
    }
    this.lastView = new Float64Array(21).fill(NaN);
    this.clock = 0;
    this.stats = { visible: 0, drawn: 0, perLod: [], cards: 0, fading: 0, uploadedBytes: 0 };
  }

  /** Every table the engine uploads (the far tier's when there is one). */
  #allTables() {
    return [this.transforms, this.records, this.clips, this.frameTimes, this.farClips, this.farRows];
  }

  /** Every visible list: per primitive and LOD, then the cards'. */
  #allLists() {
    const all = this.lists.flat();
    if (this.farList) all.push(this.farList);
    return all;
  }

  /** Sizes the tables for `n` instances; true when they were replaced (new textures). */
  #reserve(n) {
    if (n <= this.capacity && this.transforms) return false;
    const capacity = Math.max(n, Math.ceil(this.capacity * 1.5), 64);
    this.transforms = new Table(Float32Array, this.width, capacity * TEXELS);
    this.records = new Table(this.gpuTimed ? Uint32Array : Float32Array, this.width, capacity * TEXELS);
    this.capacity = capacity;
    this.placement = -1;
    for (const list of this.#allLists()) {
      list.ids = new Float32Array(capacity);
      list.scratch = new Float32Array(capacity);
      list.count = 0;
      list.changed = true;
    }
    return true;
  }

  /**
   * Brings the tables up to the crowd's state after its frame. Returns true when the tables
   * were replaced (the engine makes new textures), else marks what changed on each table.
   */
  sync() {
    const crowd = this.crowd;
    const n = crowd.count;
    const grown = this.#reserve(n);
    this.count = n;
    if (crowd.placement !== this.placement) {
      this.placement = crowd.placement;
      this.transforms.data.set(crowd.instanceMatrices());
      this.transforms.all = true;
      this.#placeSpheres(n);
      if (this.gpuTimed) {
        this.records.data.set(crowd.gpuRecords());
        this.records.all = true;
        crowd.takeRecordWrites(); // already in gpuRecords()
      }
      this.lastView.fill(NaN); // the visible lists must be rebuilt
    }
    if (this.gpuTimed) {
      const w = crowd.takeRecordWrites();
      const data = this.records.data;
      for (let o = 0; o < w.length; o += 16) {
        const at = w[o + 14] * 16;
        if (at + 16 > data.length) continue; // a stale index past a shrunk crowd
        data.set(w.subarray(o, o + 14), at);
        this.records.touch(at, 16);
      }
      this.clock = crowd.clock;
    } else {
      this.records.data.set(crowd.records());
      this.records.touch(0, n * 16);
    }
    return grown;
  }

  #placeSpheres(n) {
    const m = this.transforms.data;
    const s = (this.spheres = new Float32Array(n * 4));
    for (let i = 0; i < n; i++) {
      const o = i * 16;
      placePoint(m, o, this.center, s, i * 4);
      const scale = Math.sqrt(
        Math.max(
          m[o] * m[o] + m[o + 1] * m[o + 1] + m[o + 2] * m[o + 2],
          m[o + 4] * m[o + 4] + m[o + 5] * m[o + 5] + m[o + 6] * m[o + 6],
          m[o + 8] * m[o + 8] + m[o + 9] * m[o + 9] + m[o + 10] * m[o + 10],
        ),
      );
      s[i * 4 + 3] = scale; // radius = this.radius · scale
    }
    // the far tier's own sphere, which its switch measures from (as throng's renderer does)
    if (this.far) {
      const f = (this.farSpheres = new Float32Array(n * 3));
      for (let i = 0; i < n; i++) placePoint(m, i * 16, this.far.sphere, f, i * 3);
    }
  }

  /**
   * Culls every instance against the frustum of `viewProjection` (16 numbers, column-major,
   * clip space from the crowd's own space, OpenGL depth −w..w) and puts each visible one in
   * the LOD whose projected simplification error stays within `lodBias` pixels, given `eye`
   * (crowd space) and `pixelsPerUnit` (viewport height / (2 tan(fovY / 2)); Infinity keeps LOD
   * 0). With a far tier, an instance goes to `farList` as throng's renderer lists it: where one
   * of its tier texels covers at most `lodBias` pixels (seen from the nearest point of the
   * tier's sphere) its card starts to show, and where that is below `(1 − farFade) · lodBias`
   * it shows alone; in between it is on both lists and the shaders draw complementary halves of
   * a screen door (`farShare`). Skipped when nothing it reads has changed. Sets `changed` on the
   * lists it rewrote (until `uploaded()`).
   */
  cull(viewProjection, eye, pixelsPerUnit, lodBias) {
    const key = this.lastView;
    let same = key[16] === eye[0] && key[17] === eye[1] && key[18] === eye[2] && key[19] === pixelsPerUnit && key[20] === lodBias;
    for (let k = 0; same && k < 16; k++) same = key[k] === viewProjection[k];
    if (same) return;
    for (let k = 0; k < 16; k++) key[k] = viewProjection[k];
    key[16] = eye[0];
    key[17] = eye[1];
    key[18] = eye[2];
    key[19] = pixelsPerUnit;
    key[20] = lodBias;

    const m = viewProjection;
    // Gribb & Hartmann: plane = row 4 ± row i of the matrix, normalised
    const planes = new Float64Array(24);
    for (let p = 0; p < 6; p++) {
      const row = p >> 1;
      const sign = p & 1 ? -1 : 1;
      let a = m[3] + sign * m[row];
      let b = m[7] + sign * m[4 + row];
      let c = m[11] + sign * m[8 + row];
      let d = m[15] + sign * m[12 + row];
      const len = Math.hypot(a, b, c) || 1;
      planes.set([a / len, b / len, c / len, d / len], p * 4);
    }
    // LOD l is taken from distance thresholds[l] on (per unit of instance scale)
    const thresholds = this.meshes.map((mesh) =>
      Array.from(mesh.lodErrors, (e) => (lodBias > 0 && Number.isFinite(pixelsPerUnit) ? (e * this.extent * pixelsPerUnit) / lodBias : Infinity)),
    );
    const counts = this.meshes.map((mesh) => mesh.lods.map(() => 0));
    const next = this.lists.map((part) => part.map((list) => list.scratch));
    const s = this.spheres;
    const r0 = this.radius;
    const far = this.far;
    const farOn = far && lodBias > 0 && Number.isFinite(pixelsPerUnit);
    const fadePixels = far ? this.farFade * lodBias : 0;
    if (far) this.fade = { eye: [eye[0], eye[1], eye[2], farOn ? pixelsPerUnit : 0], band: [far.error, lodBias, fadePixels] };
    const farNext = far ? this.farList.scratch : null;
    let fading = 0;
    let cards = 0;
    let visible = 0;
    for (let i = 0; i < this.count; i++) {
      const x = s[i * 4];
      const y = s[i * 4 + 1];
      const z = s[i * 4 + 2];
      const scale = s[i * 4 + 3];
      const r = r0 * scale;
      let inside = true;
      for (let p = 0; p < 24 && inside; p += 4) inside = planes[p] * x + planes[p + 1] * y + planes[p + 2] * z + planes[p + 3] >= -r;
      if (!inside) continue;
      visible++;
      if (farOn) {
        const f = this.farSpheres;
        const d = Math.hypot(f[i * 3] - eye[0], f[i * 3 + 1] - eye[1], f[i * 3 + 2] - eye[2]) - far.sphere[3] * scale;
        const share = farShare((far.error * scale * pixelsPerUnit) / Math.max(d, 1e-6), lodBias, fadePixels);
        if (share > 0) farNext[cards++] = i;
        if (share >= 1) continue;
        if (share > 0) fading++;
      }
      const distance = Math.max(Math.hypot(x - eye[0], y - eye[1], z - eye[2]) - r, 1e-6);
      for (let p = 0; p < thresholds.length; p++) {
        const t = thresholds[p];
        let l = 0;
        while (l + 1 < t.length && distance >= t[l + 1] * scale) l++;
        next[p][l][counts[p][l]++] = i;
      }
    }
    let drawn = 0;
    for (let p = 0; p < this.lists.length; p++) {
      for (let l = 0; l < this.lists[p].length; l++) drawn += settle(this.lists[p][l], counts[p][l]);
    }
    if (far) drawn += settle(this.farList, cards);
    this.stats = { visible, drawn, perLod: counts, cards, fading, uploadedBytes: 0 };
  }

  /** The engine has sent every pending change: clear the marks. */
  uploaded() {
    for (const t of this.#allTables()) t?.uploaded();
    for (const list of this.#allLists()) list.changed = false;
  }

  /** Bytes the visible lists that changed send (4 B an instance). */
  listBytes() {
    let bytes = 0;
    for (const list of this.#allLists()) if (list.changed) bytes += list.count * 4;
    return bytes;
  }

  /** Bytes this frame's uploads send (tables by range, and the visible lists that changed). */
  pendingBytes() {
    let bytes = this.listBytes();
    for (const t of this.#allTables()) bytes += t ? t.pendingBytes() : 0;
    return bytes;
  }
}

/** Takes a list's new `count` entries from its scratch; a list the engine already has is not
 *  sent again (a still camera sends nothing), and `changed` may already be set by a resize.
 *  1 when the list draws anything. */
function settle(list, count) {
  let changed = list.changed || list.count !== count;
  for (let k = 0; !changed && k < count; k++) changed = list.ids[k] !== list.scratch[k];
  if (changed) list.ids.set(list.scratch.subarray(0, count));
  list.count = count;
  list.changed = changed;
  return count > 0 ? 1 : 0;
}

/**
 * The share of an instance its far card shows (0 all mesh, 1 all card) when one tier texel
 * covers `pixels` pixels: the card starts to show at `lodBias` pixels and shows alone
 * `fadePixels` below (0: a hard switch at `lodBias`). The JavaScript twin of throng::far's
 * far_share and adapter_far.glsl's throngFarShare.
 */
export function farShare(pixels, lodBias, fadePixels) {
  if (fadePixels <= 0) return pixels <= lodBias ? 1 : 0;
  return Math.min(Math.max((lodBias - pixels) / fadePixels, 0), 1);
}

/** Writes point `c` (its x, y, z) placed by the column-major matrix at `m[o..o + 16]` into
 *  `out[at..at + 3]`. */
function placePoint(m, o, c, out, at) {
  for (let k = 0; k < 3; k++) out[at + k] = m[o + k] * c[0] + m[o + 4 + k] * c[1] + m[o + 8 + k] * c[2] + m[o + 12 + k];
}
