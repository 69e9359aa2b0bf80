/**
 * A crowd: copies of one scene's rig on a grid, each following a scripted target of its own
 * (for the sandbox's "spawn crowd" and the many-rigs benchmark).
 *
 * Copy k stands at grid cell k (row-major, `spacing` apart on the floor, centred on the
 * original) with every position of the scene (root head, control point targets, script
 * targets) shifted by the cell's offset. Its script is the scene's script plus a wander: every
 * `every` steps one control point (the one named, else the first the script moves, else the
 * first goal with a target) moves to a point drawn around its first scripted target, from a
 * seeded generator, so copies differ but runs repeat exactly.
 *
 * Limits: the copies are independent rigs (no collisions between them); a scene whose rig has
 * no control point gets no wander.
 */
import type { ControlPointDescription, RigDescription, Scene, ScriptEvent, Vec3Tuple } from './types';
import type { RigInput } from '../core/rig';
import { mulberry32 } from '../math/random';
import { crowdWanderer } from '../core/validation/check';

export interface CrowdOptions {
  /** Distance between neighbours on the floor (default 1.5 × the rig's largest extent guess: 1.5). */
  spacing?: number;
  /** Steps between wander moves (default 100: the humanoid reaches a target in about 80). */
  every?: number;
  /** Steps of wander scripted per copy (default 4000). */
  length?: number;
  /** Wander radius as a fraction of the distance from the root to the rest target (default 0.5). */
  radius?: number;
  /** The control point that wanders (default: the first goal). */
  point?: string;
  seed?: number;
  /** Where the grid's centre stands on the floor (default the origin). */
  centre?: [number, number];
}

const shift = (v: Vec3Tuple, d: Vec3Tuple): Vec3Tuple => [v[0] + d[0], v[1] + d[1], v[2] + d[2]];

/** `count` rig inputs for addRig: the scene's rig on a grid, each with its own wandering target. */
export function crowdOf(scene: Scene, count: number, options: CrowdOptions = {}): RigInput[] {
  if (!(Number.isInteger(count) && count >= 1 && count <= 100_000)) throw new Error(`crowd size must be a whole number from 1 to 100000, got ${count}`);
  const spacing = options.spacing ?? 1.5;
  const every = options.every ?? 100;
  const length = options.length ?? 4000;
  const radius = options.radius ?? 0.5;
  if (!(spacing > 0 && every >= 1 && length >= 0 && radius >= 0)) throw new Error('crowd: spacing must be > 0, every >= 1, length and radius >= 0');
  const side = Math.ceil(Math.sqrt(count));
  const rnd = mulberry32(options.seed ?? 1);
  const { wanderer, home, rootHead } = crowdWanderer(scene, options.point);
  if (options.point && !wanderer) throw new Error(`crowd: no control point "${options.point}" in scene "${scene.name}"`);

  const out: RigInput[] = [];
  for (let k = 0; k < count; k++) {
    const [cx, cz] = options.centre ?? [0, 0];
    const d: Vec3Tuple = [cx + ((k % side) - (side - 1) / 2) * spacing, 0, cz + (Math.floor(k / side) - (side - 1) / 2) * spacing];
    const rig: RigDescription = {
      ...scene.rig,
      name: `${scene.rig.name}#${k}`,
      bones: scene.rig.bones.map((b) => (b.parent === null ? { ...b, head: shift(rootHead, d) } : b)),
    };
    const controlPoints: ControlPointDescription[] = scene.controlPoints.map((c) => (c.target ? { ...c, target: shift(c.target, d) } : c));
    const script: ScriptEvent[] = scene.script.map((e) => (e.target ? { ...e, target: shift(e.target, d) } : e));
    if (wanderer && home) {
      const reach = Math.hypot(home[0] - rootHead[0], home[1] - rootHead[1], home[2] - rootHead[2]) * radius;
      for (let s = every; s <= length; s += every) {
        const p: Vec3Tuple = [home[0] + (2 * rnd() - 1) * reach, home[1] + (2 * rnd() - 1) * reach, home[2] + (2 * rnd() - 1) * reach];
        script.push({ step: s, point: wanderer.name, target: shift(p, d) });
      }
    }
    // a starting pose stands where the copy's root does
    const start = scene.start && { ...scene.start, ...(scene.start.head ? { head: shift(scene.start.head, d) } : {}) };
    out.push({ rig, controlPoints, settings: scene.settings, script, ...(start ? { start } : {}) });
  }
  return out;
}

/**
 * The crowd the sandbox and a headless run add beside a scene's main rig: `count` copies (the
 * scene's `crowd.count` unless given) on a grid behind it (centred on x, its front row one
 * spacing behind the origin), `spacing` the scene's `crowd.spacing` or 1.2 × the rig's height,
 * the wander as the scene's `crowd` block says.
 */
export function sceneCrowd(scene: Scene, rigHeight: number, count = scene.crowd?.count ?? 0): RigInput[] {
  if (count === 0) return [];
  const spacing = scene.crowd?.spacing ?? 1.2 * rigHeight;
  const side = Math.ceil(Math.sqrt(count));
  return crowdOf(scene, count, { ...crowdWander(scene), spacing, centre: [0, -(side / 2 + 0.5) * spacing] });
}

/** The wander a scene's `crowd` block asks for, as crowdOf's options (defaults where it says nothing). */
export function crowdWander(scene: Scene): CrowdOptions {
  const c = scene.crowd;
  return { every: c?.every, radius: c?.radius, point: c?.point, seed: c?.seed };
}

