/**
 * The rigs the step benchmark runs: the humanoid scene, straight chains and seeded random trees
 * of any size. Chains and trees share the bone shape (0.1 long, default mass and radius), the
 * limits (every third joint limited to ±5° about x and z, locked about y, so the torsion
 * springs work) and one control point whose target moves at step 0 (so the rig swings while it
 * is measured); the spring's cap is an absolute 0.05, so a tip is not whipped faster than dt can
 * follow.
 */
import { fileURLToPath } from 'node:url';
import type { RigInput } from '../../src/core';
import { loadSceneFile } from '../../src/scene/loadFile';
import { crowdOf, crowdWander } from '../../src/scene/crowd';
import type { BoneDescription, Scene, Settings } from '../../src/scene/types';
import { mulberry32 } from '../../src/math/random';

export type Family = 'humanoid' | 'chain' | 'tree';
export type Solve = Settings['interJoint'];

/**
 * The bench times steps of moving rigs: a rig that has converged sleeps by default
 * (`sleepWhenConverged`) and its steps then cost next to nothing, so every rig here is kept
 * awake unless a case says otherwise (the crowd section measures both).
 */
export const AWAKE: Partial<Settings> = { sleepWhenConverged: false };
export const CHAIN_SETTINGS: Partial<Settings> = { dt: 0.05, damping: 20, epsilon: 0.001, cap: 0.05, ...AWAKE };
const LENGTH = 0.1;

export function humanoidScene(): Scene {
  return loadSceneFile(fileURLToPath(new URL('../../scenes/humanoid.json', import.meta.url)));
}

/** The humanoid scene as a rig input (its script moves the right hand at step 0), kept awake (AWAKE). */
export function humanoidInput(scene: Scene = humanoidScene()): RigInput {
  return { rig: scene.rig, controlPoints: scene.controlPoints, settings: { ...scene.settings, ...AWAKE }, script: scene.script };
}

export function crowdScene(): Scene {
  return loadSceneFile(fileURLToPath(new URL('../../scenes/crowd.json', import.meta.url)));
}

/**
 * The bench's crowd, from the crowd scene (scenes/crowd.json): n copies of its humanoid on a
 * grid, each wandering after its own seeded target as the scene's `crowd` block says
 * (src/scene/crowd.ts, the sandbox's crowd), with the scene's settings; `awake` keeps every copy
 * awake (no sleeping once converged), else the default sleep applies.
 */
export function crowdInputs(n: number, awake: boolean, scene: Scene = crowdScene()): RigInput[] {
  return crowdOf(scene, n, crowdWander(scene))
    .map((input) => (awake ? { ...input, settings: { ...input.settings, ...AWAKE } } : input));
}

const limited = (i: number): Partial<BoneDescription> =>
  (i > 0 && i % 3 === 0 ? { limits: { x: [-5, 5], y: [0, 0], z: [-5, 5] } } : {});

/** A pinned chain of n bones along +X; the tip's target moves to (0.02, 0.08, 0.02) × n at step 0. */
export function chainInput(n: number, maxPasses: number): RigInput {
  const bones: BoneDescription[] = [];
  for (let i = 0; i < n; i++) {
    bones.push({ name: `b${i}`, parent: i === 0 ? null : `b${i - 1}`, direction: [1, 0, 0], length: LENGTH, ...(i === 0 ? { head: [0, 0, 0] } : {}), ...limited(i) });
  }
  return {
    rig: { name: `chain${n}`, root: 'pinned', bones },
    controlPoints: [{ name: 'tip', bone: `b${n - 1}` }],
    settings: { ...CHAIN_SETTINGS, maxPasses },
    script: [{ step: 0, point: 'tip', target: [0.02 * n, 0.08 * n, 0.02 * n] }],
  };
}

/**
 * A pinned random recursive tree of n bones (seeded): bone i hangs from a bone drawn uniformly
 * from bones 0..i−1, pointing in a random direction, at its parent's tail (four in five) or
 * middle (so joints hold one to many bones, and a parent can have several joints). Depth grows
 * like log n, the number of children of a bone up to about log n: unlike a chain, the exact
 * solve's per-bone systems are larger than 3×3 here. The control point sits on the bone whose
 * tail is farthest from the root; its target moves at step 0 to 0.8 of that distance from the
 * root's head, up and to the side.
 */
export function treeInput(n: number, maxPasses: number, seed = 1): RigInput {
  const rnd = mulberry32(seed);
  const bones: BoneDescription[] = [];
  const head = new Float64Array(3 * n), dir = new Float64Array(3 * n);
  let tip = 0, far = -1;
  for (let i = 0; i < n; i++) {
    // a uniform direction: rejection from the cube, normalised
    let x = 0, y = 0, z = 0, m = 0;
    do { x = 2 * rnd() - 1; y = 2 * rnd() - 1; z = 2 * rnd() - 1; m = x * x + y * y + z * z; } while (m > 1 || m < 1e-4);
    m = Math.sqrt(m);
    dir[3 * i] = x / m; dir[3 * i + 1] = y / m; dir[3 * i + 2] = z / m;
    const parent = i === 0 ? -1 : Math.floor(rnd() * i);
    const attach = i === 0 ? 1 : rnd() < 0.8 ? 1 : 0.5;
    if (parent >= 0) for (let a = 0; a < 3; a++) head[3 * i + a] = head[3 * parent + a]! + attach * LENGTH * dir[3 * parent + a]!;
    const tx = head[3 * i]! + LENGTH * dir[3 * i]!, ty = head[3 * i + 1]! + LENGTH * dir[3 * i + 1]!, tz = head[3 * i + 2]! + LENGTH * dir[3 * i + 2]!;
    const d = Math.hypot(tx, ty, tz);
    if (d > far) { far = d; tip = i; }
    bones.push({
      name: `b${i}`, parent: parent < 0 ? null : `b${parent}`, direction: [dir[3 * i]!, dir[3 * i + 1]!, dir[3 * i + 2]!], length: LENGTH,
      ...(i === 0 ? { head: [0, 0, 0] } : { attach }), ...limited(i),
    });
  }
  const r = 0.8 * far / Math.hypot(0.25, 1, 0.25);
  return {
    rig: { name: `tree${n}`, root: 'pinned', bones },
    controlPoints: [{ name: 'tip', bone: `b${tip}` }],
    settings: { ...CHAIN_SETTINGS, maxPasses },
    script: [{ step: 0, point: 'tip', target: [0.25 * r, r, 0.25 * r] }],
  };
}
