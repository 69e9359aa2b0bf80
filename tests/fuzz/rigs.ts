/**
 * Fuzzing PhysIK over random rigs (fast-check): running a case and checking it (the cases
 * themselves: tests/fuzz/cases.ts). Shared by the short run in `npm test`
 * (tests/unit/fuzz.test.ts) and the long run (`npm run fuzz`, tests/fuzz/long.ts).
 *
 * A case is a random rig and a random run:
 * - 2 to 60 bones in a random tree (each bone's parent is any earlier bone; shrinks toward a
 *   chain), random rest directions and rolls, lengths log-uniform 0.01..10 with one bone in
 *   eight tiny (1e-4..1e-2) and one in eight large (10..1000), masses log-uniform 0.01..100,
 *   attachments mostly at the parent's tail, sometimes anywhere along it.
 * - per-axis limits: free, or [min, max] with min <= max anywhere in [-180, 180] (so some rest
 *   poses start outside their limits), sometimes locked [0, 0] or tight (a few degrees).
 * - a floating or pinned root; 1 to 5 control points on random bones, stiffness log-uniform
 *   0.1..1000, linear or capped, with or without their own cap.
 * - 1 to 6 target jumps during the first half of the run, each to a point up to 100 × the
 *   rig's reach away from the root in a random direction (far beyond reach).
 * - settings: either the defaults or random values within the validated ranges of
 *   src/core/settings.ts (settingRanges / settingEnums), solver always 'physik'. Unbounded
 *   ranges are sampled over a practical span (see `settingsArb`); settings added later and
 *   not listed there are sampled generically around their default.
 *
 * Checked after every step (`runCase`): every floating-point field of every store (Bone,
 * AngularLimit, Joint, ControlPoint, Rig) is finite at the rig's own entities; each child's
 * head lies on its parent at its attachment fraction (computed from the pose: parent head +
 * attach × (parent tail − parent head)); bone lengths are kept; rotations stay unit
 * quaternions; a pinned root's head stays on its pin. Limit violations are measured from the
 * pose (joint rotation vector relative to the rest pose, per limited axis, as the torsion
 * springs and metrics see it), at peak and at the end, raw and beyond the violation the
 * joint's own limits force. Steps the divergence guard held (Rig.diverged) are counted, in
 * all and in the last quarter of the run (a rig held there has frozen). The bounds are
 * `BOUNDS`; `structuralFailure`, `limitFailure` and `determinismFailure` check them.
 */
import { addRig, createPhysikWorld, readMetrics, setTarget, step, type PhysikWorld, type RigHandle } from '../../src/core';
import { limitRotationVector } from '../../systems/torsionSprings';
import { storeLayout } from '../../components/store';
import type { BoneDescription } from '../../src/scene/types';
import type { FuzzCase } from './cases';

// ---------- running and checking ----------

export interface CaseResult {
  steps: number;
  /** Non-finite values seen in the checked state (summed over steps). */
  nonFinite: number;
  /** First step (1-based) with a non-finite value, or 0, and the first field (store.field). */
  firstNonFiniteStep: number;
  firstNonFiniteField: string;
  /** Largest joint gap, absolute and relative to (|parent head| + parent length). */
  maxGap: number;
  maxGapRel: number;
  /** Largest error of a bone length, relative to (|head| + length). */
  maxLengthErrRel: number;
  /** Largest | |q| − 1 | of a bone rotation. */
  maxQuatErr: number;
  /** Largest distance of a pinned root's head from its pin. */
  maxPinErr: number;
  /** Largest limit violation (degrees) over the run, and in the final pose. */
  peakLimitDeg: number;
  finalLimitDeg: number;
  /**
   * The same, less each joint's unavoidable violation (`unavoidableViolation`: a joint whose
   * limit box does not meet the ball |φ| <= π cannot reach its limits). The bounds apply to these.
   */
  peakExcessDeg: number;
  finalExcessDeg: number;
  /** Largest growth of a joint's violation over its violation in the rest pose (degrees). */
  peakGrowthDeg: number;
  /** Joints whose limits cannot all be met (unavoidable violation > 0). */
  infeasibleJoints: number;
  /** The rig was at rest (metrics) at the end. */
  atRest: boolean;
  /** The rig had been at rest for REST_STEPS steps or more at the end. */
  settled: boolean;
  /** Largest limit violation (degrees) seen once the rig had been at rest REST_STEPS steps. */
  restLimitDeg: number;
  divergedSteps: number;
  /** Diverged (guarded) steps in the last quarter of the run (after every target jump). */
  divergedTail: number;
  /** Steps taken with clamped speeds (substeps did not help, systems/substepRetry.ts), in all and in the last quarter. */
  clampedSteps: number;
  clampedTail: number;
  /** Steps the guard refused whole and retried (substeps or clamp). */
  retriedSteps: number;
  /** First and last diverged step (1-based), or 0. */
  firstDivergedStep: number;
  lastDivergedStep: number;
  /** Checksum of the trajectory (rotations and root centre every step) and the final stores. */
  checksum: number;
  finalState: Uint8Array;
  /** Rig height (largest extent at rest). */
  height: number;
}

/** Steps a rig must have been at rest before its limit violation counts as 'at rest'. */
export const REST_STEPS = 20;

const phi = new Float64Array(3);

/**
 * The smallest violation (radians) a joint's limits force on it: the joint rotation vector φ
 * lies in the ball |φ| <= π, so limits whose box misses the ball cannot all be met. With d_a
 * the distance of axis a's range from 0, this is the least v >= 0 with Σ max(0, d_a − v)² <= π².
 */
export function unavoidableViolation(limits: BoneDescription['limits'] | undefined): number {
  if (!limits) return 0;
  const d: number[] = [];
  for (const a of [limits.x, limits.y, limits.z]) {
    if (!a || a === 'free') continue;
    const lo = a[0] * (Math.PI / 180), hi = a[1] * (Math.PI / 180);
    d.push(lo > 0 ? lo : hi < 0 ? -hi : 0);
  }
  const excess = (v: number) => d.reduce((s, x) => s + Math.max(0, x - v) ** 2, 0) - Math.PI * Math.PI;
  if (excess(0) <= 0) return 0;
  let lo = 0, hi = Math.PI;
  for (let i = 0; i < 60; i++) { const m = (lo + hi) / 2; if (excess(m) > 0) lo = m; else hi = m; }
  return hi;
}

/** Largest violation (degrees) of bone b's limits, measured from the pose; 0 without limits. */
export function jointViolationDeg(world: PhysikWorld, b: number): number {
  const { Bone, AngularLimit } = world.physik;
  const b3 = b * 3, p = Bone.parent[b]!;
  if (p < 0 || !(AngularLimit.enabled[b3] || AngularLimit.enabled[b3 + 1] || AngularLimit.enabled[b3 + 2])) return 0;
  // joint rotation vector (restLocal⁻¹ · parent⁻¹ · world) as the limits see it
  limitRotationVector(world, b, phi);
  let worst = 0;
  for (let k = 0; k < 3; k++) {
    if (!AngularLimit.enabled[b3 + k]) continue;
    const t = phi[k]!;
    const over = Math.max(t - AngularLimit.max[b3 + k]!, AngularLimit.min[b3 + k]! - t, 0) * (180 / Math.PI);
    if (!(over <= worst)) worst = over;
  }
  return worst;
}

export function buildCase(c: FuzzCase): { world: PhysikWorld; handle: RigHandle } {
  const world = createPhysikWorld();
  const handle = addRig(world, {
    rig: { name: 'fuzz', root: c.root, bones: c.bones },
    controlPoints: c.controlPoints,
    settings: c.settings,
  });
  return { world, handle };
}

/** FNV-1a-like mixing of the bits of a double into h. */
const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
function mix(h: number, x: number): number {
  f64[0] = x;
  h = Math.imul(h ^ u32[0]!, 16777619);
  return Math.imul(h ^ u32[1]!, 16777619);
}

function finalBytes(world: PhysikWorld): Uint8Array {
  const p = world.physik;
  const parts: Uint8Array[] = [];
  for (const store of [p.Bone, p.Joint, p.AngularLimit, p.ControlPoint, p.Rig]) {
    for (const field of Object.values(store as Record<string, number[] | Int32Array | Uint8Array>)) {
      const arr = Array.isArray(field) ? Float64Array.from(field) : field; // double fields are plain arrays: their bytes as Float64s
      parts.push(new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength));
    }
  }
  const out = new Uint8Array(parts.reduce((s, a) => s + a.length, 0));
  let o = 0;
  for (const a of parts) { out.set(a, o); o += a.length; }
  return out;
}

export function runCase(c: FuzzCase, steps: number): CaseResult {
  const { world, handle } = buildCase(c);
  const { Bone, Rig } = world.physik;
  const record = world.physik.rigs[0]!;
  const bones = record.bones;
  const cps = record.controlPoints;
  const rig = handle.rig;
  const reach = c.bones.reduce((s, b) => s + b.length, 0);
  const attachOf = new Float64Array(bones.length);
  const descByName = new Map(c.bones.map((b) => [b.name, b]));
  const unavoidable = new Float64Array(bones.length);
  let infeasibleJoints = 0;
  bones.forEach((b, i) => {
    const d = descByName.get(record.boneNames[i]!)!;
    attachOf[i] = d.attach ?? 1;
    unavoidable[i] = d.parent === null ? 0 : unavoidableViolation(d.limits) * (180 / Math.PI);
    if (unavoidable[i]! > 0) infeasibleJoints++;
  });
  const pinned = c.root === 'pinned';
  const pin = [Rig.pin[rig * 3]!, Rig.pin[rig * 3 + 1]!, Rig.pin[rig * 3 + 2]!];
  const jumps = c.jumps.map((j) => ({ ...j, stepAt: Math.floor(j.at * steps) }));
  let ji = 0;
  const tail = Math.floor(steps / 4);
  const initialDeg = new Float64Array(bones.length);
  bones.forEach((b, i) => (initialDeg[i] = jointViolationDeg(world, b)));
  const r: CaseResult = {
    steps, nonFinite: 0, firstNonFiniteStep: 0, firstNonFiniteField: '', maxGap: 0, maxGapRel: 0, maxLengthErrRel: 0, maxQuatErr: 0,
    maxPinErr: 0, peakLimitDeg: 0, finalLimitDeg: 0, peakExcessDeg: 0, finalExcessDeg: 0, peakGrowthDeg: 0, infeasibleJoints,
    atRest: false, settled: false, restLimitDeg: 0, divergedSteps: 0, divergedTail: 0, clampedSteps: 0, clampedTail: 0, retriedSteps: 0, firstDivergedStep: 0, lastDivergedStep: 0,
    checksum: 2166136261,
    finalState: new Uint8Array(0), height: Rig.height[rig]!,
  };
  // every floating-point field of every store, at the rig's own entities
  const p = world.physik;
  const checked: { name: string; store: Record<string, unknown>; key: string; width: number; ids: ArrayLike<number> }[] = [];
  for (const [name, store, ids] of [
    ['Bone', p.Bone, bones], ['AngularLimit', p.AngularLimit, bones], ['Joint', p.Joint, record.joints],
    ['ControlPoint', p.ControlPoint, cps], ['Rig', p.Rig, [rig]],
  ] as const) {
    const layout = storeLayout(store)!;
    for (const [key, [Ctor, width]] of Object.entries(layout)) {
      if (Ctor === Float64Array) checked.push({ name, store: store as unknown as Record<string, unknown>, key, width, ids });
    }
  }
  for (let s = 0; s < steps; s++) {
    while (ji < jumps.length && jumps[ji]!.stepAt <= s) {
      const j = jumps[ji++]!;
      const cp = cps[j.cp % cps.length]!;
      const n = Math.hypot(...j.dir);
      const d = j.factor * reach / n;
      // far from the root's current head (a floating rig may have travelled)
      const h = bones[0]! * 3;
      setTarget(world, cp, [Bone.head[h]! + j.dir[0] * d, Bone.head[h + 1]! + j.dir[1] * d, Bone.head[h + 2]! + j.dir[2] * d]);
    }
    const divergedBefore = Rig.diverged[rig]!;
    const clampedBefore = Rig.clampedSteps[rig]!;
    step(world);
    if (Rig.clampedSteps[rig]! > clampedBefore && s >= steps - tail) r.clampedTail++;
    if (Rig.diverged[rig]! > divergedBefore) {
      if (!r.firstDivergedStep) r.firstDivergedStep = s + 1;
      r.lastDivergedStep = s + 1;
      if (s >= steps - tail) r.divergedTail++;
    }
    let bad = 0;
    let limitDeg = 0;
    let excessDeg = 0;
    for (let i = 0; i < bones.length; i++) {
      const b = bones[i]!, b3 = b * 3, b4 = b * 4;
      const qn = Math.hypot(Bone.rot[b4]!, Bone.rot[b4 + 1]!, Bone.rot[b4 + 2]!, Bone.rot[b4 + 3]!);
      r.maxQuatErr = Math.max(r.maxQuatErr, Math.abs(qn - 1));
      const L = Bone.length[b]!;
      const hx = Bone.head[b3]!, hy = Bone.head[b3 + 1]!, hz = Bone.head[b3 + 2]!;
      const hn = Math.hypot(hx, hy, hz);
      const len = Math.hypot(Bone.tail[b3]! - hx, Bone.tail[b3 + 1]! - hy, Bone.tail[b3 + 2]! - hz);
      r.maxLengthErrRel = Math.max(r.maxLengthErrRel, Math.abs(len - L) / (hn + L));
      const p = Bone.parent[b]!;
      if (p < 0) {
        if (pinned) r.maxPinErr = Math.max(r.maxPinErr, Math.hypot(hx - pin[0]!, hy - pin[1]!, hz - pin[2]!));
        continue;
      }
      const p3 = p * 3, a = attachOf[i]!;
      const gap = Math.hypot(
        Bone.head[p3]! + a * (Bone.tail[p3]! - Bone.head[p3]!) - hx,
        Bone.head[p3 + 1]! + a * (Bone.tail[p3 + 1]! - Bone.head[p3 + 1]!) - hy,
        Bone.head[p3 + 2]! + a * (Bone.tail[p3 + 2]! - Bone.head[p3 + 2]!) - hz,
      );
      const scale = Math.hypot(Bone.head[p3]!, Bone.head[p3 + 1]!, Bone.head[p3 + 2]!) + Bone.length[p]!;
      if (!(gap <= r.maxGap)) r.maxGap = gap;
      if (!(gap / scale <= r.maxGapRel)) r.maxGapRel = gap / scale;
      const over = jointViolationDeg(world, b);
      if (over > 0) {
        if (!(over <= limitDeg)) limitDeg = over;
        const ex = over - unavoidable[i]!;
        if (!(ex <= excessDeg)) excessDeg = ex;
        const grow = over - initialDeg[i]!;
        if (!(grow <= r.peakGrowthDeg)) r.peakGrowthDeg = grow;
      }
    }
    for (const f of checked) {
      const arr = f.store[f.key] as number[];
      for (let i = 0; i < f.ids.length; i++) {
        const o = f.ids[i]! * f.width;
        for (let k = 0; k < f.width; k++) {
          if (!Number.isFinite(arr[o + k]!)) {
            bad++;
            if (!r.firstNonFiniteField) r.firstNonFiniteField = `${f.name}.${f.key}`;
          }
        }
      }
    }
    if (bad) {
      r.nonFinite += bad;
      if (!r.firstNonFiniteStep) r.firstNonFiniteStep = s + 1;
    }
    if (!(limitDeg <= r.peakLimitDeg)) r.peakLimitDeg = limitDeg;
    r.finalLimitDeg = limitDeg;
    if (!(excessDeg <= r.peakExcessDeg)) r.peakExcessDeg = excessDeg;
    r.finalExcessDeg = excessDeg;
    // at rest: 20 or more steps in a row without motion or a diverged step
    if (Rig.atRest[rig] === 1 && Rig.restSince[rig]! <= Rig.step[rig]! - REST_STEPS && !(limitDeg <= r.restLimitDeg)) r.restLimitDeg = limitDeg;
    for (let i = 0; i < bones.length; i++) {
      const b4 = bones[i]! * 4;
      r.checksum = mix(r.checksum, Bone.rot[b4]! + Bone.rot[b4 + 1]! + Bone.rot[b4 + 2]! + Bone.rot[b4 + 3]!);
    }
    r.checksum = mix(r.checksum, Bone.centre[bones[0]! * 3]!);
  }
  const m = readMetrics(world, rig);
  r.atRest = m.atRest;
  r.settled = m.atRest && m.restSince !== null && m.restSince <= m.step - REST_STEPS;
  r.divergedSteps = m.divergedSteps;
  r.clampedSteps = Rig.clampedSteps[rig]!;
  r.retriedSteps = m.retriedSteps;
  r.finalState = finalBytes(world);
  return r;
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Stated bounds (see the report in tests/unit/fuzz.test.ts). */
export const BOUNDS = {
  /** gap / (|parent head| + parent length) */
  gapRel: 1e-9,
  /** | |tail − head| − length | / (|head| + length) */
  lengthRel: 1e-9,
  quat: 1e-9,
  /** pinned root head vs pin, relative to (|pin| + height) */
  pinRel: 1e-12,
  /**
   * Limits, default settings only (random settings may weaken or switch off the limit springs:
   * limitStiffness near 0, no hard stop, limitTolerance): the largest violation in the final
   * pose beyond what the joint's own limits force (`unavoidableViolation`), in degrees. The
   * default hard-stop band is 5° past a limit (50× stiffer beyond), so a rig pressed against
   * its limits ends within a few degrees of that band. Measured (npm run fuzz, default
   * settings, seeds 1..500 × 2000 steps, with pressed limits coupled in the exact solve and
   * speculative limit springs): over the 442 rigs that needed no speed clamp in the last quarter
   * of the run, 425 within 10° and 17 beyond it, largest 56°; 322 of the 500 settle. Exceeded by:
   * rigs of sub-centimetre, 10 g bones beside heavy metre-long ones pulled 100× their reach,
   * which churn against their limits faster than 32 substeps follow and get their speeds
   * clamped (58 of the 500, final violations up to 164°), and a few of the others still moving
   * at the end. Peaks during far jumps are not bounded: a joint's violation grew by up to 178°
   * over its rest pose's.
   */
  limitFinalDeg: 10,
};

/** The limit property (default settings only); null when it holds or does not apply. */
export function limitFailure(c: FuzzCase, r: CaseResult): string | null {
  if (Object.keys(c.settings).length > 0) return null;
  if (r.finalExcessDeg <= BOUNDS.limitFinalDeg) return null;
  const held = (r.divergedTail > 0
    ? `; the divergence guard held the rig on ${r.divergedTail} of the last ${Math.floor(r.steps / 4)} steps (diverged steps ${r.firstDivergedStep}..${r.lastDivergedStep}, ${r.divergedSteps} in all)`
    : '') + (r.clampedTail > 0 ? `; speeds clamped on ${r.clampedTail} of the last ${Math.floor(r.steps / 4)} steps (${r.clampedSteps} in all)` : '');
  return `final limit violation ${r.finalExcessDeg.toFixed(2)}° > ${BOUNDS.limitFinalDeg}°${held}`;
}

/** The structural properties (everything but limits and determinism); null when they hold. */
export function structuralFailure(c: FuzzCase, r: CaseResult): string | null {
  if (r.nonFinite > 0) return `${r.nonFinite} non-finite values, first at step ${r.firstNonFiniteStep} (${r.firstNonFiniteField})`;
  if (!(r.maxGapRel <= BOUNDS.gapRel)) return `joint gap ${r.maxGap} (relative ${r.maxGapRel}) > ${BOUNDS.gapRel}`;
  if (!(r.maxLengthErrRel <= BOUNDS.lengthRel)) return `bone length error (relative) ${r.maxLengthErrRel} > ${BOUNDS.lengthRel}`;
  if (!(r.maxQuatErr <= BOUNDS.quat)) return `rotation not unit: | |q| - 1 | = ${r.maxQuatErr}`;
  const pinScale = Math.hypot(...(c.bones[0]!.head ?? [0, 0, 0])) + r.height;
  if (!(r.maxPinErr <= BOUNDS.pinRel * pinScale)) return `pinned root moved ${r.maxPinErr} from its pin`;
  return null;
}

/** Run twice in fresh worlds; null when both runs are bit-identical. */
export function determinismFailure(c: FuzzCase, steps: number, first?: CaseResult): string | null {
  const a = first ?? runCase(c, steps);
  const b = runCase(c, steps);
  if (a.checksum !== b.checksum) return `trajectories differ (checksum ${a.checksum} vs ${b.checksum})`;
  if (!sameBytes(a.finalState, b.finalState)) return 'final stores differ';
  return null;
}
