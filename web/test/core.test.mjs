// Unit tests of the adapters' engine-neutral half (web/packages/throng/core.js), on a stand-in
// crowd with no wasm and no browser: `node --test web/test/core.test.mjs` (run by
// crates/throng-web/tests/core_js.rs). Expected values are worked out by hand below.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CrowdTables, Table, farShare } from "../packages/throng/core.js";

const WIDTH = 2048;

/** A crowd of `n` instances in a row along x (spacing 10), the pose bounds a unit cube at the
 *  origin, one primitive with LOD errors [0, 0.01] (relative to the bounds' diagonal). */
function fakeCrowd(n, { gpu = false, far = null } = {}) {
  class Crowd {
    static tableWidth() {
      return WIDTH;
    }
    static glsl() {
      return "// glsl";
    }
    static farGlsl() {
      return "// far glsl";
    }
  }
  const c = new Crowd();
  c.gpuTimed = gpu;
  c.count = n;
  c.placement = 1;
  c.clock = 7;
  c.writes = new Uint32Array(0);
  c.boneRows = () => ({ width: 3, height: 1, data: new Float32Array(12) });
  c.meshes = () => [{ lods: [new Uint32Array(3), new Uint32Array(3)], lodErrors: new Float32Array([0, 0.01]) }];
  c.poseBounds = () => [-0.5, -0.5, -0.5, 0.5, 0.5, 0.5];
  c.clipTable = () => ({ clips: new Uint32Array([0, 10, 0xffffffff, 0]), frameTimes: new Uint32Array([0]) });
  c.instanceMatrices = () => {
    const m = new Float32Array(c.count * 16);
    for (let i = 0; i < c.count; i++) {
      m.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 10 * i, 0, 0, 1], i * 16);
    }
    return m;
  };
  c.records = () => new Float32Array(c.count * 16).fill(1);
  c.gpuRecords = () => new Uint32Array(c.count * 16).fill(3);
  c.farTier = () => far;
  c.takeRecordWrites = () => {
    const w = c.writes;
    c.writes = new Uint32Array(0);
    return w;
  };
  return c;
}

/** An orthographic-like clip-from-world matrix (column-major) seeing x in [lo, hi], y and z in
 *  [-100, 100]: clip = ((2x - lo - hi) / (hi - lo), y / 100, z / 100, 1). */
function boxView(lo, hi) {
  const sx = 2 / (hi - lo);
  return [sx, 0, 0, 0, 0, 0.01, 0, 0, 0, 0, 0.01, 0, -(lo + hi) / (hi - lo), 0, 0, 1];
}

test("a range is split at texture rows", () => {
  const t = new Table(Float32Array, 4, 40); // 4 texels a row = 16 components
  t.uploaded();
  t.touch(10, 30); // components 10..40: rows 0 (10..16), 1 (16..32), 2 (32..40)
  assert.deepEqual(t.ranges, [[10, 6], [16, 16], [32, 8]]);
  assert.equal(t.pendingBytes(), 30 * 4);
});

test("culling keeps the instances whose sphere meets the frustum", () => {
  const c = fakeCrowd(10); // centres at x = 0, 10, …, 90; radius √3/2
  const t = new CrowdTables(c);
  t.sync();
  // x in [15, 55]: centres 20, 30, 40, 50 inside; 10 and 60 are 5 away, beyond the radius
  t.cull(boxView(15, 55), [0, 0, 1000], Infinity, 1);
  assert.equal(t.stats.visible, 4);
  assert.deepEqual(Array.from(t.lists[0][0].ids.subarray(0, t.lists[0][0].count)), [2, 3, 4, 5]);
  // x in [10.5, 55]: the sphere of the fox at 10 reaches 10.87, so it is kept
  t.cull(boxView(10.5, 55), [0, 0, 1000], Infinity, 1);
  assert.equal(t.stats.visible, 5);
});

test("LOD by projected error, and nothing resent for a still camera", () => {
  const c = fakeCrowd(10);
  const t = new CrowdTables(c);
  t.sync();
  // LOD 1 errs 0.01 · √3 units; at 100 pixels per unit of distance / bias 1 it is allowed from
  // a distance of 0.01 · √3 · 100 = 1.73 on. The eye at x = 0, 1.5 above the row: the fox at 0
  // is 1.5 − 0.87 = 0.63 away (LOD 0); the others are farther than 1.73 (LOD 1).
  const view = boxView(-100, 100);
  t.cull(view, [0, 1.5, 0], 100, 1);
  assert.deepEqual(t.stats.perLod, [[1, 9]]);
  assert.ok(t.lists[0][0].changed && t.lists[0][1].changed);
  t.uploaded();
  t.cull(view, [0, 1.5, 0], 100, 1);
  assert.equal(t.pendingBytes(), 0, "a still camera sends no list");
  // lodBias 0 keeps LOD 0
  t.cull(view, [0, 1.5, 0], 100, 0);
  assert.deepEqual(t.stats.perLod, [[10, 0]]);
});

test("GPU-timed: only rewritten records travel, and a move resends everything", () => {
  const c = fakeCrowd(600, { gpu: true }); // 600 × 4 texels: two rows of 512 instances
  const t = new CrowdTables(c);
  t.sync();
  assert.equal(t.clock, 7);
  assert.equal(t.records.data[0], 3);
  t.cull(boxView(-1e4, 1e4), [0, 0, 0], Infinity, 1);
  t.uploaded();
  // two writes: instance 5 and instance 513 (second row)
  const w = new Uint32Array(32);
  w.fill(9, 0, 14);
  w[14] = 5;
  w.fill(8, 16, 30);
  w[30] = 513;
  c.writes = w;
  t.sync();
  assert.deepEqual(t.records.ranges, [[80, 16], [513 * 16, 16]]);
  assert.equal(t.records.data[80], 9);
  assert.equal(t.records.data[80 + 14], 3, "the pad words stay");
  assert.equal(t.records.data[513 * 16], 8);
  t.cull(boxView(-1e4, 1e4), [0, 0, 0], Infinity, 1);
  assert.equal(t.pendingBytes(), 2 * 64);
  t.uploaded();
  t.sync();
  assert.equal(t.pendingBytes(), 0, "a frame without changes sends nothing");
  c.placement++; // e.g. setTransform
  t.sync();
  assert.ok(t.transforms.all && t.records.all);
});

test("CPU-timed: every record every frame; growth replaces the tables", () => {
  const c = fakeCrowd(10);
  const t = new CrowdTables(c);
  assert.equal(t.sync(), true, "first sync makes the tables");
  t.uploaded();
  assert.equal(t.sync(), false);
  assert.equal(t.records.pendingBytes(), 10 * 64);
  c.count = 1000;
  c.placement++;
  assert.equal(t.sync(), true, "more instances than the capacity: new tables");
  assert.ok(t.capacity >= 1000);
  assert.equal(t.transforms.data[999 * 16 + 12], 9990);
});

test("the far tier: cards where a tier texel covers at most lodBias pixels", () => {
  // The tier's sphere centred 0.25 above the pose bounds' centre, radius 1; one texel 0.02
  // units. At 100 pixels per unit of distance and bias 1, a texel covers a pixel from a
  // distance of 0.02 · 100 = 2 on, measured from the sphere's surface: centre distance 3.
  const far = {
    sphere: new Float32Array([0, 0.25, 0, 1]),
    error: 0.02,
    clips: new Uint32Array([1, 0, 0, 0, 0, 4, 1, 0]),
    rows: new Float32Array(4),
  };
  const c = fakeCrowd(10, { far });
  const t = new CrowdTables(c);
  t.sync();
  assert.ok(t.farList && t.farGlsl === "// far glsl");
  assert.equal(t.farClips.data[4 + 1], 4, "clip 0's frames");
  // the eye at x = 25, level with the tier's centre: foxes at 20 and 30 are 5 away (centre
  // distance; 4 from the surface: cards), and so are all others; with the eye at x = 21.5 the
  // fox at 20 is 1.5 − 1 = 0.5 from it (mesh, LOD 0 for its box) and the one at 30 is 7.5 (card)
  const view = boxView(-100, 100);
  t.cull(view, [21.5, 0.25, 0], 100, 1);
  assert.equal(t.stats.cards, 9);
  assert.deepEqual(t.stats.perLod, [[1, 0]]);
  assert.deepEqual(Array.from(t.farList.ids.subarray(0, 9)), [0, 1, 3, 4, 5, 6, 7, 8, 9]);
  assert.ok(t.farList.changed);
  assert.equal(t.stats.fading, 0);
  // a bias of 4.5: the fox at 20 sees a texel cover 4 pixels, inside the crossfade (from 4.5
  // down to 0.7 · 4.5 = 3.15): on both lists, its card showing (4.5 − 4) / 1.35 of it
  t.cull(view, [21.5, 0.25, 0], 100, 4.5);
  assert.equal(t.stats.cards, 10);
  assert.equal(t.stats.fading, 1);
  // (its LOD at that bias: LOD 1 errs 0.01 · √3 · 100 / 4.5 = 0.38 pixels from its box's 0.66)
  assert.deepEqual(t.stats.perLod, [[0, 1]]);
  assert.deepEqual(t.fade, { eye: [21.5, 0.25, 0, 100], band: [0.02, 4.5, 4.5 * 0.3] });
  assert.ok(Math.abs(farShare(4, 4.5, 1.35) - 0.5 / 1.35) < 1e-12);
  // a hard switch (farFade 0) at a bias of 4: 4 pixels ≤ 4, a card alone
  const hard = new CrowdTables(fakeCrowd(10, { far }), { farFade: 0 });
  hard.sync();
  hard.cull(view, [21.5, 0.25, 0], 100, 4);
  assert.equal(hard.stats.cards, 10);
  assert.equal(hard.stats.fading, 0);
  assert.deepEqual(hard.stats.perLod, [[0, 0]]);
  // switched off, or without a tier: no cards
  const off = new CrowdTables(fakeCrowd(10, { far }), { farTier: false });
  off.sync();
  off.cull(view, [21.5, 0.25, 0], 100, 1);
  assert.equal(off.farList, undefined);
  assert.equal(off.stats.cards, 0);
  assert.deepEqual(off.stats.perLod, [[1, 9]]);
});
