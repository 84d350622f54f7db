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

/**
 * The per-crowd state both adapters share. `crowd` is a headless Crowd (`loadCrowd`); the
 * caller keeps stepping it (`crowd.frame(dt)`), then calls `sync()` and `cull(...)` before
 * drawing.
 */
export class CrowdTables {
  constructor(crowd) {
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
    this.lists = this.meshes.map((m) => m.lods.map(() => ({ ids: null, scratch: null, count: 0, changed: true })));
    this.lastView = new Float64Array(21).fill(NaN);
    this.clock = 0;
    this.stats = { visible: 0, drawn: 0, perLod: [], uploadedBytes: 0 };
  }

  /** Sizes the tables for `n` instances; true when they were replaced (new textures). */
  #reserve(n) {
    if (n <= this.capacity && this.transforms) return false;
    const capacity = Math.max(n, Math.ceil(this.capacity * 1.5), 64);
    this.transforms = new Table(Float32Array, this.width, capacity * TEXELS);
    this.records = new Table(this.gpuTimed ? Uint32Array : Float32Array, this.width, capacity * TEXELS);
    this.capacity = capacity;
    this.placement = -1;
    for (const part of this.lists) {
      for (const list of part) {
        list.ids = new Float32Array(capacity);
        list.scratch = new Float32Array(capacity);
        list.count = 0;
        list.changed = true;
      }
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
    const [cx, cy, cz] = this.center;
    for (let i = 0; i < n; i++) {
      const o = i * 16;
      s[i * 4] = m[o] * cx + m[o + 4] * cy + m[o + 8] * cz + m[o + 12];
      s[i * 4 + 1] = m[o + 1] * cx + m[o + 5] * cy + m[o + 9] * cz + m[o + 13];
      s[i * 4 + 2] = m[o + 2] * cx + m[o + 6] * cy + m[o + 10] * cz + m[o + 14];
      const scale = Math.sqrt(
        Math.max(
          m[o] * m[o] + m[o + 1] * m[o + 1] + m[o + 2] * m[o + 2],
          m[o + 4] * m[o + 4] + m[o + 5] * m[o + 5] + m[o + 6] * m[o + 6],
          m[o + 8] * m[o + 8] + m[o + 9] * m[o + 9] + m[o + 10] * m[o + 10],
        ),
      );
      s[i * 4 + 3] = scale; // radius = this.radius · scale
    }
  }

  /**
   * Culls every instance against the frustum of `viewProjection` (16 numbers, column-major,
   * clip space from the crowd's own space, OpenGL depth −w..w) and puts each visible one in
   * the LOD whose projected simplification error stays within `lodBias` pixels, given `eye`
   * (crowd space) and `pixelsPerUnit` (viewport height / (2 tan(fovY / 2)); Infinity keeps LOD
   * 0). Skipped when nothing it reads has changed. Sets `changed` on the lists it rewrote
   * (until `uploaded()`).
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
      for (let l = 0; l < this.lists[p].length; l++) {
        const list = this.lists[p][l];
        const c = counts[p][l];
        // a list the engine already has is not sent again (a still camera sends nothing);
        // `changed` may already be set by #reserve (new buffers)
        let changed = list.changed || list.count !== c;
        for (let k = 0; !changed && k < c; k++) changed = list.ids[k] !== list.scratch[k];
        if (changed) list.ids.set(list.scratch.subarray(0, c));
        list.count = c;
        list.changed = changed;
        drawn += c > 0 ? 1 : 0;
      }
    }
    this.stats = { visible, drawn, perLod: counts, uploadedBytes: 0 };
  }

  /** The engine has sent every pending change: clear the marks. */
  uploaded() {
    for (const t of [this.transforms, this.records, this.clips, this.frameTimes]) t?.uploaded();
    for (const part of this.lists) for (const list of part) list.changed = false;
  }

  /** Bytes the visible lists that changed send (4 B an instance). */
  listBytes() {
    let bytes = 0;
    for (const part of this.lists) for (const list of part) if (list.changed) bytes += list.count * 4;
    return bytes;
  }

  /** Bytes this frame's uploads send (tables by range, and the visible lists that changed). */
  pendingBytes() {
    let bytes = this.listBytes();
    for (const t of [this.transforms, this.records, this.clips, this.frameTimes]) bytes += t ? t.pendingBytes() : 0;
    return bytes;
  }
}
