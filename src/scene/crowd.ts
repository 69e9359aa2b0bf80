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
import { MAX_MAGNITUDE, type SceneIssue } from './check';

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

/**
 * The control point a crowd's copies wander with (the one named, else the first the script
 * moves, else the first goal with a target), its home (where the script first sends it, else
 * its own target) and the root's head.
 */
function wanderOf(scene: Scene, point: string | undefined) {
  const scripted = scene.script.find((e) => e.target)?.point;
  const wanderer = scene.controlPoints.find((c) => c.name === (point ?? scripted))
    ?? (point ? undefined : scene.controlPoints.find((c) => c.role !== 'pole' && c.target));
  const home = (wanderer && (scene.script.find((e) => e.point === wanderer.name && e.target)?.target ?? wanderer.target)) as Vec3Tuple | undefined;
  const rootHead = (scene.rig.bones.find((b) => b.parent === null)?.head ?? [0, 0, 0]) as Vec3Tuple;
  return { wanderer, home, rootHead };
}

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
  const { wanderer, home, rootHead } = wanderOf(scene, options.point);
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
    out.push({ rig, controlPoints, settings: scene.settings, script });
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

/** `x` rounded down to 3 significant digits, for a bound in a message (never above `x`). */
function floor3(x: number): string {
  if (!(x > 0)) return '0';
  const unit = 10 ** (Math.floor(Math.log10(x)) - 2);
  const r = Math.floor(x / unit) * unit;
  return String(Number((r > x ? r - unit : r).toPrecision(3)));
}

/**
 * A validated scene's `crowd` block, checked for what its copies would be given: every copy's
 * positions (root head, targets, script and wander targets) are the scene's shifted by up to
 * side × spacing (side = ⌈√count⌉; sceneCrowd centres the grid on x and puts it behind the
 * origin on z), and each copy's input is validated like any rig's, within ±MAX_MAGNITUDE. A
 * spacing or radius that takes a copy beyond that is refused here, naming the crowd's field,
 * rather than later as a copy's internal path. Without a `spacing` the run uses 1.2 × the
 * rig's height, bounded here by 1.2 × the sum of its bone lengths (the height is the diameter
 * of the rest pose). Checked for the scene's `count` (the sandbox's `?crowd=N` may ask for more).
 */
export function crowdIssues(scene: Scene): SceneIssue[] {
  const c = scene.crowd;
  if (!c) return [];
  const side = Math.ceil(Math.sqrt(c.count));
  const far = (v: readonly number[] | undefined) => (v ? Math.max(Math.abs(v[0]!), Math.abs(v[1]!), Math.abs(v[2]!)) : 0);
  const { wanderer, home, rootHead } = wanderOf(scene, c.point);
  // the farthest coordinate of the positions a copy shifts
  let reach = far(rootHead);
  for (const p of scene.controlPoints) reach = Math.max(reach, far(p.target));
  for (const e of scene.script) reach = Math.max(reach, far(e.target));
  let lengths = 0;
  for (const b of scene.rig.bones) lengths += b.length;
  const spacing = c.spacing ?? 1.2 * lengths;
  const grid = side * spacing;
  const issues: SceneIssue[] = [];
  if (!(reach + grid <= MAX_MAGNITUDE)) {
    const most = floor3((MAX_MAGNITUDE - reach) / side);
    const message = c.spacing !== undefined
      ? `expected at most ${most} for ${c.count} copies (the grid reaches ${side} spacings from the origin: a larger spacing puts copies beyond ±1e9), got ${c.spacing}`
      : `expected a spacing of at most ${most} for ${c.count} copies (the default, 1.2 × the rig's height, may be up to ${spacing}: copies beyond ±1e9), got none`;
    issues.push({ path: c.spacing !== undefined ? 'crowd.spacing' : 'crowd', message });
    return issues;
  }
  if (wanderer && home) {
    const radius = c.radius ?? 0.5;
    const distance = Math.hypot(home[0] - rootHead[0], home[1] - rootHead[1], home[2] - rootHead[2]);
    const wander = far(home) + distance * radius + grid;
    if (!(wander <= MAX_MAGNITUDE)) {
      const most = floor3((MAX_MAGNITUDE - far(home) - grid) / distance);
      issues.push({
        path: c.radius !== undefined ? 'crowd.radius' : 'crowd',
        message: `expected a wander radius of at most ${most} (× ${distance}, the distance from the root to "${wanderer.name}"'s home; a larger one sends copies beyond ±1e9), got ${c.radius ?? 'the default 0.5'}`,
      });
    }
  }
  return issues;
}
