/**
 * Imported skeletons (BVH joints, glTF skin joints) → a PhysIK rig description.
 *
 * An imported skeleton is a tree of joints at world positions with arbitrary offsets. The rig
 * keeps it one to one: bone i is joint i (same name, same parent, listed in the same order),
 * its head at the joint's position, and a child's head where the file puts it, as an
 * `offset` in the parent bone's rest frame (anywhere on the parent, not only on its axis). No
 * bone is added and none merged. The conversion, stated exactly (deterministic: same joints ⇒
 * same rig):
 *
 * - Bone J points from joint J to its *main child* (so the bone named "LeftForeArm" is the
 *   forearm: from the elbow joint to the wrist joint). The main child is, for the root, the
 *   child with the largest subtree (ties: the first); for every other joint, the child that
 *   continues the incoming segment straightest (smallest angle between parent→J and J→child,
 *   looking through coincident joints; ties: the farther child, then the larger subtree, then
 *   the first). Not "largest subtree" everywhere: a chest's arms outnumber its neck, and the
 *   left/right tie would make the spine's top bone lean to one side.
 * - A joint without children ends at its end site (BVH "End Site", a glTF leaf's plain child
 *   node) when it has one. Otherwise the leaf rule applies: the bone continues the incoming
 *   segment's direction with half its length (incoming segment = from the nearest ancestor
 *   joint at a distinct position); a root without any distinct child gets length 1 along +Y.
 * - Zero-length joints: a joint whose main child coincides with it (closer than
 *   `mergeDistance` × figure height, e.g. CMU's Hips and LowerBack at one point) gets a short
 *   bone, a quarter of the way toward the first distinct point beyond that child; the child
 *   keeps its own bone and attaches at offset 0 (the parent's head). With the default
 *   `mergeDistance` that distance is also capped at 5% of the median joint-to-parent distance,
 *   so a long chain of short, even segments keeps its bones' true lengths.
 * - Roll: a joint with a rest rotation (glTF) rolls its bone so the bone's x axis is as near
 *   the joint's x axis as the bone's direction allows (for joints along their +Y, as Blender
 *   writes them, the frames agree); without one (BVH) the roll is 0.
 * - Every bone has no mass or radius, so the scene defaults apply (mass = density × length,
 *   radius = 0.1 × length); joint limits are not imported (the formats have none; see
 *   humanoid.ts for a template).
 * - Up axis: `up: 'z'` rotates Z-up input to Y-up, (x, y, z) → (x, z, −y) (as Blender's
 *   glTF/BVH exporters do). `up: 'auto'` calls the input Z-up when the joints span more than
 *   1.2 × as far along Z as along Y, right for upright figures in any pose (X is sideways in
 *   both conventions); a figure lying along Z (a snake, a long quadruped) needs `up: 'y'`.
 *   A rotation is always reported in the warnings.
 * - Names: trimmed; whitespace and control characters become "_" (so a BVH writer can write
 *   them back); empty names become `joint<index>`; a repeated name gets `.2`, `.3`, ...
 *   Every rename is reported.
 *
 * Invalid input (no joints, more joints than a rig may have bones, a parent index out of range,
 * not exactly one root, a parent cycle, a non-finite position or one beyond ±1e9 after
 * `scale`, a bone longer than 1e9) throws an `ImportError` naming the joint (and where the
 * file defines it, `SkeletonJoint.where`). Every step is linear or n log n in the joints and
 * none recurses, so the checks come before any work whose cost depends on the joint count.
 * Limits: one skeleton per call; the rest pose only (no motion); positions are taken as
 * given (the root's head stays where the file puts it).
 *
 * Why one file of this length: it is one conversion, whose rules this header states in order;
 * the checks, names and geometry below are its steps, and read best beside it.
 */
import { pointsDiameter } from '../world/rigScale';
import { MAX_BONES, MAX_MAGNITUDE } from '../core/validation/check';
import { quatFromDirectionRoll } from '../math/quat';
import type { BoneDescription, ControlPointDescription, RigDescription, Vec3Tuple } from '../scene/types';

export interface SkeletonJoint {
  /** May be empty (unnamed joints get generated names). */
  name: string;
  /** Index of the parent joint in the same array, -1 for the root. */
  parent: number;
  /** World position at rest. */
  position: Vec3Tuple;
  /** World position of the joint's end site (BVH "End Site"), if any. */
  endSite?: Vec3Tuple;
  /**
   * World rotation of the joint at rest (x, y, z, w; glTF nodes have one, BVH joints do not):
   * the bone is rolled about its axis so its x axis is as near this frame's as it can be.
   */
  rest?: [number, number, number, number];
  /** Where the file defines the joint ("line 12", "node 5"), prefixed to error messages. */
  where?: string;
}

export interface JointsToRigOptions {
  /** Rig name (default "imported"). */
  name?: string;
  /** Up axis of the input (default 'y'); 'z' and a detected Z-up are rotated to Y-up. */
  up?: 'auto' | 'y' | 'z';
  /** Multiply every position (default 1), e.g. 0.01 for centimetres → metres. */
  scale?: number;
  /**
   * Joints closer than this fraction of the figure's height coincide (default 0.001, and then
   * never more than 5% of the median joint-to-parent distance): a joint whose first child
   * coincides with it gets a short bone (nothing is merged).
   */
  mergeDistance?: number;
  /** No longer used: children off their parent's axis attach by `offset`, with no connector bones. */
  lockLinks?: boolean;
  /** File name for error messages. */
  file?: string;
}

export interface ImportedRig {
  rig: RigDescription;
  warnings: string[];
  /** Per input joint (same index): its unique, sanitised name. */
  jointNames: string[];
  /** Per input joint (same index): the bone that carries it (always its own: `rig.bones[i]` is joint i). */
  boneOfJoint: string[];
  /** The input's up axis as used: 'z' means the positions were rotated to Y-up. */
  up: 'y' | 'z';
}

/**
 * Deepest joint nesting an import reads (a real skeleton is tens of levels deep). Readers
 * recurse over the hierarchy (three.js's GLTFLoader overflows the stack at about 2000 levels),
 * so deeper files are refused with this limit named instead.
 */
export const MAX_IMPORT_DEPTH = 1000;

/** An import failed; the message starts with the file name when one is known. */
export class ImportError extends Error {
  override name = 'ImportError';
  constructor(
    readonly file: string | undefined,
    readonly problem: string,
  ) {
    super(file ? `${file}: ${problem}` : problem);
  }
}

type V = Vec3Tuple;
const sub = (a: V, b: V): V => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const addScaled = (a: V, d: V, s: number): V => [a[0] + d[0] * s, a[1] + d[1] * s, a[2] + d[2] * s];
const dot = (a: V, b: V) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const len = (a: V) => Math.hypot(a[0], a[1], a[2]);
const dist = (a: V, b: V) => len(sub(a, b));
const unit = (a: V): V => {
  const n = len(a);
  return [a[0] / n, a[1] / n, a[2] / n];
};
/** MAX_MAGNITUDE as the scene checks write it ("1e9"). */
const MAG = MAX_MAGNITUDE.toExponential().replace('e+', 'e');
const fmt = (v: readonly number[]) => `[${v.map((x) => String(x)).join(', ')}]`;
/** The first `max` items, then "... (n in all)". */
const someOf = (items: string[], max = 8) => (items.length > max ? `${items.slice(0, max).join(', ')}, ... (${items.length} in all)` : items.join(', '));

/** Sanitised, unique names; reports what it changed. */
function uniqueNames(raw: string[], warnings: string[]): string[] {
  const used = new Set<string>();
  // per base name, the suffix to try next: every smaller one is taken, so a thousand joints of
  // one name cost a thousand look-ups, not half a million
  const nextSuffix = new Map<string, number>();
  const unnamed: string[] = [];
  const changed: string[] = [];
  const dupes: string[] = [];
  const out = raw.map((n, i) => {
    const trimmed = (n ?? '').trim();
    let base = trimmed.replace(/[\s\u0000-\u001f\u007f]+/g, '_');
    if (!base) {
      base = `joint${i}`;
      unnamed.push(base);
    } else if (base !== n) {
      changed.push(`${JSON.stringify(n)} → "${base}"`);
    }
    let name = base;
    if (used.has(name)) {
      let k = nextSuffix.get(base) ?? 2;
      while (used.has(`${base}.${k}`)) k++;
      name = `${base}.${k}`;
      nextSuffix.set(base, k + 1);
      dupes.push(`"${base}" (joint ${i}) → "${name}"`);
    }
    used.add(name);
    return name;
  });
  if (unnamed.length) {
    const shown = unnamed.length > 4 ? `${unnamed.slice(0, 3).join(', ')} ... ${unnamed.at(-1)}` : unnamed.join(', ');
    warnings.push(`${unnamed.length} unnamed joint(s) named after their index: ${shown}`);
  }
  if (changed.length) warnings.push(`joint names with spaces or control characters renamed: ${someOf(changed)}`);
  if (dupes.length) warnings.push(`duplicate joint names made unique: ${someOf(dupes)}`);
  return out;
}

/** Structural checks; throws ImportError naming the joint. Returns the root's index. */
function validate(joints: SkeletonJoint[], file: string | undefined): number {
  const fail = (msg: string) => {
    throw new ImportError(file, msg);
  };
  if (!Array.isArray(joints) || joints.length === 0) fail('no joints: the skeleton is empty');
  const n = joints.length;
  if (n > MAX_BONES) fail(`${n} joints: more than the ${MAX_BONES} bones a rig may have (one bone per joint)`);
  const label = (i: number) => `${joints[i]?.where ? `${joints[i]!.where}: ` : ''}joint ${i}${joints[i]?.name ? ` "${joints[i]!.name}"` : ''}`;
  const finite3 = (v: unknown) => Array.isArray(v) && v.length === 3 && v.every((x) => typeof x === 'number' && Number.isFinite(x));
  const roots: number[] = [];
  joints.forEach((j, i) => {
    if (!Number.isInteger(j.parent) || j.parent < -1 || j.parent >= n || j.parent === i) {
      fail(`${label(i)}: parent ${String(j.parent)} is not a joint index (expected -1 for the root or 0..${n - 1}, not itself)`);
    }
    if (j.parent === -1) roots.push(i);
    if (!finite3(j.position)) fail(`${label(i)}: position ${Array.isArray(j.position) ? fmt(j.position) : String(j.position)} is not 3 finite numbers`);
    if (j.endSite !== undefined && !finite3(j.endSite)) fail(`${label(i)}: end site ${Array.isArray(j.endSite) ? fmt(j.endSite) : String(j.endSite)} is not 3 finite numbers`);
  });
  if (roots.length !== 1) {
    fail(roots.length === 0
      ? 'no root joint (every joint has a parent, so the parents form a cycle)'
      : `expected exactly one root joint, found ${roots.length}: ${roots.slice(0, 6).map(label).join(', ')}${roots.length > 6 ? ', ...' : ''}`);
  }
  // every joint must reach the root
  const state = new Uint8Array(n); // 0 unknown, 1 on the current walk, 2 reaches the root
  state[roots[0]!] = 2;
  for (let s = 0; s < n; s++) {
    const walk: number[] = [];
    let c = s;
    while (state[c] === 0) {
      state[c] = 1;
      walk.push(c);
      c = joints[c]!.parent;
    }
    if (state[c] === 1) fail(`${label(c)}: parent cycle (${[...walk.slice(walk.indexOf(c)), c].map((k) => joints[k]!.name || `joint ${k}`).join(' -> ')})`);
    for (const k of walk) state[k] = 2;
  }
  return roots[0]!;
}

/** Should Z-up input be assumed? Extent along Z versus Y of every position. */
function detectZUp(points: V[]): { zUp: boolean; extY: number; extZ: number } {
  let loY = Infinity, hiY = -Infinity, loZ = Infinity, hiZ = -Infinity;
  for (const p of points) {
    loY = Math.min(loY, p[1]); hiY = Math.max(hiY, p[1]);
    loZ = Math.min(loZ, p[2]); hiZ = Math.max(hiZ, p[2]);
  }
  const extY = hiY - loY, extZ = hiZ - loZ;
  return { zUp: extZ > 1.2 * extY, extY, extZ };
}

const round = (x: number) => Number(x.toPrecision(4));

/** "dir/walk.bvh" → "walk" (scene and rig names of imported files). */
export function baseName(file: string | undefined, fallback = 'imported'): string {
  const b = (file ?? '').split(/[\\/]/).pop()!.replace(/\.[^.]*$/, '');
  return b || fallback;
}

/** Convert joints at positions to a rig description (see the header for the rules). */
export function jointsToRig(joints: SkeletonJoint[], options: JointsToRigOptions = {}): ImportedRig {
  const file = options.file;
  const root = validate(joints, file);
  const scale = options.scale ?? 1;
  if (!(Number.isFinite(scale) && scale > 0)) throw new ImportError(file, `scale must be a positive number, got ${scale}`);
  const mergeFraction = options.mergeDistance ?? 0.001;
  if (!(Number.isFinite(mergeFraction) && mergeFraction >= 0)) throw new ImportError(file, `mergeDistance must be a number >= 0, got ${mergeFraction}`);
  const warnings: string[] = [];
  const n = joints.length;
  const label = (i: number) => `${joints[i]!.where ? `${joints[i]!.where}: ` : ''}joint ${i}${joints[i]!.name ? ` "${joints[i]!.name}"` : ''}`;

  // positions: scaled, then Y-up
  let P: V[] = joints.map((j) => [j.position[0] * scale, j.position[1] * scale, j.position[2] * scale]);
  let E: (V | undefined)[] = joints.map((j) => (j.endSite ? [j.endSite[0] * scale, j.endSite[1] * scale, j.endSite[2] * scale] : undefined));
  // a scene's numbers stay within ±1e9 (beyond, squares overflow in the simulation); say so
  // here, naming the joint and its line, rather than as a path into the generated scene
  const inRange = (p: V) => Math.abs(p[0]) <= MAX_MAGNITUDE && Math.abs(p[1]) <= MAX_MAGNITUDE && Math.abs(p[2]) <= MAX_MAGNITUDE;
  for (let i = 0; i < n; i++) {
    const what = !inRange(P[i]!) ? `position ${fmt(P[i]!)}` : E[i] && !inRange(E[i]!) ? `end site ${fmt(E[i]!)}` : '';
    if (what) {
      throw new ImportError(file, `${label(i)}: ${what}${scale !== 1 ? ` (after scale ${scale})` : ''} is out of range: coordinates must lie within ±${MAG} (larger ones overflow the simulation)`);
    }
  }
  let up: 'y' | 'z' = options.up === 'z' ? 'z' : 'y';
  if (options.up === 'auto') {
    const d = detectZUp([...P, ...E.filter((e): e is V => !!e)]);
    if (d.zUp) {
      up = 'z';
      warnings.push(`Z-up detected (the joints span ${round(d.extZ)} along Z but ${round(d.extY)} along Y): rotated to Y-up, (x, y, z) → (x, z, −y); import with up: 'y' to keep the file's axes`);
    }
  } else if (up === 'z') {
    warnings.push(`up: 'z': rotated to Y-up, (x, y, z) → (x, z, −y)`);
  }
  if (up === 'z') {
    const rot = (p: V): V => [p[0], p[2], -p[1]];
    P = P.map(rot);
    E = E.map((e) => (e ? rot(e) : undefined));
  }

  const names = uniqueNames(joints.map((j) => j.name), warnings);
  const children: number[][] = Array.from({ length: n }, () => []);
  joints.forEach((j, i) => {
    if (j.parent >= 0) children[j.parent]!.push(i);
  });
  const subtree = new Array<number>(n).fill(1);
  {
    // post-order without recursion (deep chains)
    const order: number[] = [];
    const stack = [root];
    while (stack.length) {
      const j = stack.pop()!;
      order.push(j);
      for (const c of children[j]!) stack.push(c);
    }
    for (let k = order.length - 1; k >= 0; k--) {
      const j = order[k]!;
      const p = joints[j]!.parent;
      if (p >= 0) subtree[p]! += subtree[j]!;
    }
  }

  // figure height: the diameter of the joints and end sites (as addRig measures a rig), so a
  // turned file merges the same joints
  const points = [...P, ...E.filter((e): e is V => !!e)];
  const height = pointsDiameter(points.flat(), points.length);
  if (n > 1 && height === 0) throw new ImportError(file, `all ${n} joints are at the same position ${fmt(P[0]!)}: no bone lengths can be derived`);
  let tol = mergeFraction * height;
  if (options.mergeDistance === undefined) {
    // the default never merges joints whose distance is a real share of the skeleton's segments
    const segments: number[] = [];
    for (let i = 0; i < n; i++) {
      const p = joints[i]!.parent;
      const d = p >= 0 ? dist(P[i]!, P[p]!) : 0;
      if (d > 0) segments.push(d);
    }
    segments.sort((a, b) => a - b);
    if (segments.length) tol = Math.min(tol, 0.05 * segments[segments.length >> 1]!);
  }
  const distinct = (a: V, b: V) => dist(a, b) > tol;

  /** Incoming segment of joint j: from the nearest ancestor at a distinct position. */
  const incoming = (j: number): { dir: V; length: number } | undefined => {
    let a = joints[j]!.parent;
    while (a >= 0 && !distinct(P[a]!, P[j]!)) a = joints[a]!.parent;
    if (a < 0) return undefined;
    const d = sub(P[j]!, P[a]!);
    return { dir: unit(d), length: len(d) };
  };

  /** First point in c's subtree (breadth first, end sites included) distinct from `from`. */
  const reach = (c: number, from: V): V | undefined => {
    const queue = [c];
    for (let q = 0; q < queue.length; q++) {
      const k = queue[q]!;
      if (distinct(P[k]!, from)) return P[k];
      const e = E[k];
      if (e && children[k]!.length === 0 && distinct(e, from)) return e;
      queue.push(...children[k]!);
    }
    return undefined;
  };

  const chooseMain = (pending: number[], from: V, dirIn: V | undefined): number => {
    // lexicographic: straightest (cosine to 1e-9), then farthest, then larger subtree, then first
    let best = 0;
    let bestCos = -Infinity, bestDist = -Infinity, bestSize = -Infinity;
    pending.forEach((c, i) => {
      let cos = 0, dist = 0;
      if (dirIn) {
        const r = reach(c, from);
        cos = r ? Math.round(dot(dirIn, unit(sub(r, from))) * 1e9) / 1e9 : -2;
        dist = r ? Math.hypot(...sub(r, from)) : 0;
      }
      const size = subtree[c]!;
      // farther wins among equally straight children: the nearer ones then lie on its axis
      // (a chest's neck at the tail, collar links between), which is how our own export is laid out
      const better = cos !== bestCos ? cos > bestCos : dist !== bestDist ? dist > bestDist * (1 + 1e-9) : size > bestSize;
      if (better) {
        bestCos = cos; bestDist = dist; bestSize = size;
        best = i;
      }
    });
    return best;
  };

  // Rest rotations of the source joints (for each bone's roll), in the rig's axes.
  const upQ: Quat = [-Math.SQRT1_2, 0, 0, Math.SQRT1_2]; // (x, y, z) → (x, z, −y)
  const restOf = (j: number): Quat | undefined => {
    const q = joints[j]!.rest;
    if (!q) return undefined;
    const l = Math.hypot(q[0], q[1], q[2], q[3]);
    if (!(l > 1e-9) || !Number.isFinite(l)) return undefined;
    const u: Quat = [q[0] / l, q[1] / l, q[2] / l, q[3] / l];
    return up === 'z' ? qmul(upQ, u) : u;
  };

  // Depth first from the root, children in file order (an explicit stack: deep chains).
  const order: number[] = [];
  {
    const stack = [root];
    while (stack.length) {
      const j = stack.pop()!;
      order.push(j);
      const kids = children[j]!;
      for (let k = kids.length - 1; k >= 0; k--) stack.push(kids[k]!);
    }
  }

  const bones: BoneDescription[] = new Array(n);
  const restWorld: Quat[] = new Array(n);
  const zeroLength: string[] = [];
  const leaves: string[] = [];
  const rolled: string[] = [];
  const q = new Float64Array(4);
  for (const j of order) {
    const head = P[j]!;
    const inc = incoming(j);
    const kids = children[j]!;
    let tail: V | undefined;
    let length = 0;
    if (kids.length) {
      const main = kids[chooseMain(kids, head, inc?.dir)]!;
      if (distinct(P[main]!, head)) {
        tail = P[main]!;
        length = dist(tail, head);
      } else {
        // the main child sits on this joint (a zero-length joint, CMU's Hips and LowerBack):
        // a short bone toward the first distinct point beyond it keeps both joints
        const far = reach(main, head);
        if (far) {
          const d = dist(far, head);
          length = STUB * d;
          tail = addScaled(head, unit(sub(far, head)), length);
          zeroLength.push(names[j]!);
        }
      }
    }
    if (!tail) {
      const endSite = E[j];
      if (endSite && distinct(endSite, head)) {
        tail = endSite;
        length = dist(tail, head);
      } else if (inc) {
        length = 0.5 * inc.length;
        tail = addScaled(head, inc.dir, length);
        leaves.push(names[j]!);
      } else {
        length = 1;
        tail = addScaled(head, [0, 1, 0], 1);
        warnings.push(`joint "${names[j]}" has no distinct child or end site: bone of length 1 along +Y`);
      }
    }
    if (!(length <= MAX_MAGNITUDE)) {
      throw new ImportError(file, `${label(j)}: its bone would be ${length} long (from ${fmt(head)} to ${fmt(tail)}); at most ${MAG} is supported (larger lengths overflow the simulation)`);
    }
    const dir = unit(sub(tail, head));
    // roll: the bone's x axis as near the source joint's own x axis as the bone's direction allows,
    // so per-axis limits read in the joint's frame (for glTF joints along +Y, the frames agree)
    let roll = 0;
    const rest = restOf(j);
    if (rest) {
      quatFromDirectionRoll(q, 0, dir[0], dir[1], dir[2], 0);
      const x0 = rotate([q[0]!, q[1]!, q[2]!, q[3]!], [1, 0, 0]);
      let xs = rotate(rest, [1, 0, 0]);
      let xt = addScaled(xs, dir, -dot(xs, dir));
      if (len(xt) < 1e-6) {
        xs = rotate(rest, [0, 0, 1]); // the source's x lies along the bone: its z is the rolled y
        const zt = addScaled(xs, dir, -dot(xs, dir));
        xt = cross(dir, zt); // x = y × z
      }
      if (len(xt) > 1e-9) {
        roll = (Math.atan2(dot(dir, cross(x0, xt)), dot(x0, xt)) * 180) / Math.PI;
        if (Math.abs(roll) < 1e-9) roll = 0;
        else rolled.push(names[j]!);
      }
    }
    quatFromDirectionRoll(q, 0, dir[0], dir[1], dir[2], (roll * Math.PI) / 180);
    restWorld[j] = [q[0]!, q[1]!, q[2]!, q[3]!];
    const p = joints[j]!.parent;
    const bone: BoneDescription = { name: names[j]!, parent: p < 0 ? null : names[p]!, direction: dir, length };
    if (roll !== 0) bone.roll = roll;
    if (p < 0) bone.head = [...head];
    else {
      // the head where the file has it, in the parent's rest frame
      const o = rotate(conj(restWorld[p]!), sub(head, P[p]!));
      bone.offset = [clean(o[0]), clean(o[1]), clean(o[2])];
    }
    bones[j] = bone;
  }
  if (zeroLength.length) {
    warnings.push(`${zeroLength.length} joint(s) whose first child sits on them (within ${round(tol)}) given a short bone toward the next distinct joint (${STUB} of the way), children kept where they are: ${someOf(zeroLength)}`);
  }
  if (leaves.length) {
    warnings.push(`${leaves.length} leaf joint(s) without an end site given half their incoming segment's length: ${someOf(leaves)}`);
  }
  return { rig: { name: options.name ?? 'imported', bones }, warnings, jointNames: names, boneOfJoint: [...names], up };
}

/** A zero-length joint's bone: this fraction of the way to the next distinct joint. */
const STUB = 0.25;

/** Rounding noise of a rotated zero (1e-17) written as 0, so scene files read cleanly. */
const clean = (x: number) => (Math.abs(x) < 1e-15 ? 0 : x);

type Quat = [number, number, number, number];
const cross = (a: V, b: V): V => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const conj = (a: Quat): Quat => [-a[0], -a[1], -a[2], a[3]];
function qmul(a: Quat, b: Quat): Quat {
  return [
    a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
    a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
  ];
}
function rotate(q: Quat, v: V): V {
  const [x, y, z, w] = q;
  const tx = 2 * (y * v[2] - z * v[1]), ty = 2 * (z * v[0] - x * v[2]), tz = 2 * (x * v[1] - y * v[0]);
  return [v[0] + w * tx + (y * tz - z * ty), v[1] + w * ty + (z * tx - x * tz), v[2] + w * tz + (x * ty - y * tx)];
}
/**
 * Control points at the ends of the `n` longest chains from the root, for posing an imported
 * rig. Chain length is measured along the skeleton (each bone's head sits `attach` along its
 * parent, or `offset` from its head). The first pick is the leaf bone farthest from the root; each next pick is the
 * leaf whose path adds the most length not already on a picked path (so the second chain is
 * the other arm or a leg, not a neighbouring finger). Ties: the first bone in rig order.
 * Each point is named after its bone, sits at the bone's tail and has no target (so it pins
 * the tail where it rests until a target is set). When the rig has fewer leaves than `n` (a
 * single chain), the root's head is the next end (at 0). At most leaves + 1 points.
 */
export function defaultControlPoints(rig: RigDescription, n = 2): ControlPointDescription[] {
  const bones = rig.bones;
  const index = new Map(bones.map((b, i) => [b.name, i]));
  const parentOf = bones.map((b) => (b.parent === null ? -1 : index.get(b.parent) ?? -1));
  const hasChild = new Array<boolean>(bones.length).fill(false);
  parentOf.forEach((p) => p >= 0 && (hasChild[p] = true));
  // distance along the skeleton from the root's head to each bone's head (memoised walk up)
  const headDist = new Array<number>(bones.length).fill(NaN);
  const distOf = (i: number): number => {
    const chain: number[] = [];
    let c = i;
    while (c >= 0 && Number.isNaN(headDist[c]!)) {
      chain.push(c);
      c = parentOf[c]!;
    }
    for (let k = chain.length - 1; k >= 0; k--) {
      const b = chain[k]!;
      const p = parentOf[b]!;
      const off = bones[b]!.offset;
      headDist[b] = p < 0 ? 0 : headDist[p]! + (off ? Math.hypot(off[0], off[1], off[2]) : (bones[b]!.attach ?? 1) * bones[p]!.length);
    }
    return headDist[i]!;
  };
  const leaves = bones.map((_, i) => i).filter((i) => !hasChild[i]);
  const onPicked = new Array<boolean>(bones.length).fill(false);
  const out: ControlPointDescription[] = [];
  for (let pick = 0; pick < n && pick < leaves.length; pick++) {
    let best = -1;
    let bestGain = -Infinity;
    for (const leaf of leaves) {
      if (onPicked[leaf]) continue;
      // walk up to the first bone already on a picked path: the gain starts where we branch off it
      let c = leaf;
      while (parentOf[c]! >= 0 && !onPicked[parentOf[c]!]) c = parentOf[c]!;
      const p = parentOf[c]!;
      const branch = p >= 0 && onPicked[p] ? distOf(c) : 0;
      const gain = distOf(leaf) + bones[leaf]!.length - branch;
      if (gain > bestGain + 1e-12) {
        bestGain = gain;
        best = leaf;
      }
    }
    if (best < 0) break;
    for (let c = best; c >= 0; c = parentOf[c]!) onPicked[c] = true;
    out.push({ name: bones[best]!.name, bone: bones[best]!.name, at: 1 });
  }
  // A single chain has one leaf: its other end is the root's head.
  const root = bones.findIndex((b) => b.parent === null);
  if (out.length < n && root >= 0) {
    const name = out.some((c) => c.name === bones[root]!.name) ? `${bones[root]!.name}.head` : bones[root]!.name;
    out.push({ name, bone: bones[root]!.name, at: 0 });
  }
  return out;
}
