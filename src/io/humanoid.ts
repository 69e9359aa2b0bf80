/**
 * Joint limits for imported characters: a humanoid template recognised from bone names (the
 * Mixamo, CMU/BVH, VRM humanoid, Unreal mannequin and Blender Rigify conventions) or, for
 * unnamed skeletons (glTF files with no joint names), from the skeleton's shape; and, for
 * every bone it does not map, defaults that keep a limb from folding back through its parent.
 *
 * What it gives (degrees, in the joint frame: y along the bone, x the bend axis):
 * - knees and elbows: hinges, bending 0 to 150 one way only, the other swing ±5;
 *   a knee twists ±10, a forearm ±80 (the forearm carries the wrist's turn);
 * - hips (thighs) −20 (back) to 120 (forward), ±40 sideways, ±40 twist; upper arms −60 to 150,
 *   ±90, ±90; shoulders (clavicles) ±20; wrists ±70 / ±20 twist / ±30; ankles −45 (toes
 *   down) to 25 (up), ±15 twist, ±25; toes −30 to 60;
 * - spine, neck: a total range shared among their bones (spine −40 to 80 forward bend, ±45 to
 *   the side, ±60 twist; neck −40 to 50, ±35, ±60), then the head −30 to 30, ±40, ±25;
 * - CMU's hip-joint bones (pelvis to thigh) and other pelvis links: locked (a weld);
 * - every other bone below the root: swing ±135 on x and z, twist ±90, so no limb folds
 *   back through its parent.
 *
 * The bend axes: a hinge needs its axis across the limb. The template rolls each mapped limb
 * bone about its own axis so its x axis is d × b (d the bone's direction, b the way it bends:
 * backward for knees, forward for elbows, hips, upper arms, spine and neck, up for feet and
 * toes), where forward is the way the toes point (else +Z) and left = up × forward. Rolling a
 * bone re-expresses its children's offsets in its new frame, so no joint moves. Limits and
 * rolls go into the rig description, so they are saved in the scene file with it.
 *
 * Recognition: names are read with their prefixes ("mixamorig:", "DEF-", "J_Bip_", "Bip01 ",
 * "CC_Base_") and side markers ("Left", "L_", ".L", "_l", a CMU "l" before a known bone) taken
 * off; a rig with hips, a spine, two legs and two arms by name is mapped by names. Otherwise by
 * shape: the two lowest leaf chains are the legs, their common ancestor the hips, the chain
 * from there to the highest point the spine, neck and head, and the two other chains leaving
 * the top of the spine the arms; in each limb the two longest bones in a row are the upper
 * and lower limb, the bone after them the hand or foot.
 *
 * Limits: humanoids only (a quadruped gets the defaults); finger limits are the defaults; the
 * ranges are typical human ranges, not the character's.
 */
import { quatFromDirectionRoll } from '../math/quat';
import type { AxisLimit, BoneDescription, RigDescription, Vec3Tuple } from '../world/types';

export type HumanoidRole =
  | 'hips' | 'head'
  | 'leftShoulder' | 'leftUpperArm' | 'leftLowerArm' | 'leftHand'
  | 'rightShoulder' | 'rightUpperArm' | 'rightLowerArm' | 'rightHand'
  | 'leftHipJoint' | 'leftUpperLeg' | 'leftLowerLeg' | 'leftFoot' | 'leftToes'
  | 'rightHipJoint' | 'rightUpperLeg' | 'rightLowerLeg' | 'rightFoot' | 'rightToes';

export interface HumanoidMapping extends Partial<Record<HumanoidRole, string>> {
  /** Spine bones from the hips up (the chest last). */
  spine: string[];
  /** Neck bones from the chest up. */
  neck: string[];
}

export interface HumanoidTemplateResult {
  /** The rig with rolls and limits (a new description; the input is not changed). */
  rig: RigDescription;
  /** Which bone took which role ('names' or 'shape' in `method`); none when not a humanoid. */
  mapping: HumanoidMapping;
  method: 'names' | 'shape' | 'none';
  /** Bones that got the template's limits, and bones that got the defaults. */
  templated: string[];
  defaulted: string[];
  /** What was recognised and how, for the user to read. */
  notes: string[];
}

/** What an import reports of the template: the mapping and which bones got which limits. */
export interface HumanoidReport {
  method: HumanoidTemplateResult['method'];
  mapping: HumanoidMapping;
  templated: string[];
  defaulted: string[];
}

export function humanoidReport(t: HumanoidTemplateResult): HumanoidReport {
  return { method: t.method, mapping: t.mapping, templated: t.templated, defaulted: t.defaulted };
}

export interface HumanoidTemplateOptions {
  /** Overrides of the mapping (role → bone name), applied over what was recognised. */
  mapping?: Partial<HumanoidMapping>;
  /** Give unmapped bones the anti-folding defaults (default true). */
  defaults?: boolean;
}

type V = Vec3Tuple;
type Q = [number, number, number, number];
type Limits = NonNullable<BoneDescription['limits']>;

const sub = (a: V, b: V): V => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dot = (a: V, b: V) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a: V, b: V): V => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const len = (a: V) => Math.hypot(a[0], a[1], a[2]);
const unit = (a: V): V => { const n = len(a); return [a[0] / n, a[1] / n, a[2] / n]; };
const conj = (q: Q): Q => [-q[0], -q[1], -q[2], q[3]];
function rotate(q: Q, v: V): V {
  const [x, y, z, w] = q;
  const tx = 2 * (y * v[2] - z * v[1]), ty = 2 * (z * v[0] - x * v[2]), tz = 2 * (x * v[1] - y * v[0]);
  return [v[0] + w * tx + (y * tz - z * ty), v[1] + w * ty + (z * tx - x * tz), v[2] + w * tz + (x * ty - y * tx)];
}
function restRotation(b: BoneDescription): Q {
  const q = new Float64Array(4);
  quatFromDirectionRoll(q, 0, b.direction[0], b.direction[1], b.direction[2], ((b.roll ?? 0) * Math.PI) / 180);
  return [q[0]!, q[1]!, q[2]!, q[3]!];
}

/** Rest heads, tails and rotations of a description's bones (any listing order). */
export function restPose(rig: RigDescription): { head: V[]; tail: V[]; rot: Q[]; parent: number[] } {
  const bones = rig.bones;
  const index = new Map(bones.map((b, i) => [b.name, i]));
  const parent = bones.map((b) => (b.parent === null ? -1 : index.get(b.parent) ?? -1));
  const rot = bones.map(restRotation);
  const head: V[] = new Array(bones.length);
  const tail: V[] = new Array(bones.length);
  const headOf = (i: number): V => {
    const chain: number[] = [];
    for (let c = i; c >= 0 && !head[c]; c = parent[c]!) chain.push(c);
    for (let k = chain.length - 1; k >= 0; k--) {
      const c = chain[k]!, p = parent[c]!, b = bones[c]!;
      if (p < 0) head[c] = [...(b.head ?? [0, 0, 0])] as V;
      else {
        const off: V = b.offset ?? [0, (b.attach ?? 1) * bones[p]!.length, 0];
        const o = rotate(rot[p]!, off);
        head[c] = [head[p]![0] + o[0], head[p]![1] + o[1], head[p]![2] + o[2]];
      }
    }
    return head[i]!;
  };
  bones.forEach((b, i) => {
    const h = headOf(i);
    const d = rotate(rot[i]!, [0, b.length, 0]);
    tail[i] = [h[0] + d[0], h[1] + d[1], h[2] + d[2]];
  });
  return { head, tail, rot, parent };
}

// ---- names

type Side = 'left' | 'right' | '';
/** A bone name without its prefixes and side marker: the base (lower case, letters and digits) and the side. */
export function readBoneName(raw: string): { base: string; side: Side } {
  let s = raw.trim();
  s = s.replace(/^.*:/, ''); // mixamorig:Hips, mixamorig1:Hips
  s = s.replace(/^(DEF|ORG|MCH|CC_Base|J_Bip|J_Adj|J_Sec|Bip0*1|Bip)[-_ .]?/i, '');
  s = s.replace(/^C[-_]/, ''); // VRM's J_Bip_C_Hips
  let side: Side = '';
  const take = (re: RegExp, which: Side) => {
    if (side) return;
    const m = re.exec(s);
    if (m) { side = which; s = s.slice(0, m.index) + s.slice(m.index + m[0].length); }
  };
  take(/^left[-_ .]?/i, 'left'); take(/^right[-_ .]?/i, 'right');
  take(/[-_ .]?left$/i, 'left'); take(/[-_ .]?right$/i, 'right');
  take(/^L[-_ .]/, 'left'); take(/^R[-_ .]/, 'right');
  take(/^l[-_ .]/, 'left'); take(/^r[-_ .]/, 'right');
  take(/[-_ .]L(?=$|[-_ .]\d*$)/, 'left'); take(/[-_ .]R(?=$|[-_ .]\d*$)/, 'right');
  take(/[-_ .]l(?=$|[-_ .]\d*$)/, 'left'); take(/[-_ .]r(?=$|[-_ .]\d*$)/, 'right');
  take(/^L(?=[A-Z])/, 'left'); take(/^R(?=[A-Z])/, 'right'); // CMU's LHipJoint, LThumb
  let base = s.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (!side && /^[lr](femur|tibia|foot|toes|humerus|radius|wrist|hand|clavicle|hipjoint|thumb|fingers)$/.test(base)) {
    side = base[0] === 'l' ? 'left' : 'right'; // CMU's ASF names: lfemur, rhumerus
    base = base.slice(1);
  }
  return { base, side };
}

const ROLE_NAMES: [RegExp, string][] = [
  [/^(hips?|pelvis|cog)$/, 'hips'],
  [/^(spine\d*|lowerback|upperback|abdomen\d*|chest\d*|upperchest|thorax|torso|waist|stomach)$/, 'spine'],
  [/^(neck\d*|lowerneck|upperneck)$/, 'neck'],
  [/^head$/, 'head'],
  [/^(shoulder|clavicle|collar|collarbone)$/, 'Shoulder'],
  [/^(arm|upperarm|uparm|humerus)$/, 'UpperArm'],
  [/^(forearm|lowerarm|lowarm|radius|elbow)$/, 'LowerArm'],
  [/^(hand|wrist)$/, 'Hand'],
  [/^(hipjoint)$/, 'HipJoint'],
  [/^(upleg|upperleg|thigh|femur)$/, 'UpperLeg'],
  [/^(leg|lowerleg|lowleg|calf|shin|tibia|knee)$/, 'LowerLeg'],
  [/^(foot|ankle)$/, 'Foot'],
  [/^(toebase|toe|toes|ball)$/, 'Toes'],
];

function mapByNames(rig: RigDescription): HumanoidMapping {
  const m: HumanoidMapping = { spine: [], neck: [] };
  const set = m as unknown as Record<string, string>;
  for (const b of rig.bones) {
    const { base, side } = readBoneName(b.name);
    const role = ROLE_NAMES.find(([re]) => re.test(base))?.[1];
    if (!role) continue;
    if (role === 'spine') m.spine.push(b.name);
    else if (role === 'neck') m.neck.push(b.name);
    else if (role === 'hips' || role === 'head') { if (!set[role]) set[role] = b.name; }
    else if (side) {
      const key = `${side}${role}`;
      if (!set[key]) set[key] = b.name; // the first (outermost): a wrist before its hand
    }
  }
  // no bone called hips (Rigify's pelvis is "spine"): the nearest common ancestor of the thighs
  if (!m.hips && m.leftUpperLeg && m.rightUpperLeg) {
    const parentOf = new Map(rig.bones.map((b) => [b.name, b.parent]));
    const up = new Set<string>();
    for (let c = parentOf.get(m.leftUpperLeg) ?? null; c !== null; c = parentOf.get(c) ?? null) up.add(c);
    let c = parentOf.get(m.rightUpperLeg) ?? null;
    while (c !== null && !up.has(c)) c = parentOf.get(c) ?? null;
    if (c !== null) {
      m.hips = c;
      m.spine = m.spine.filter((x) => x !== c);
    }
  }
  return m;
}

const complete = (m: HumanoidMapping) =>
  !!(m.hips && m.leftUpperLeg && m.rightUpperLeg && m.leftLowerLeg && m.rightLowerLeg && m.leftUpperArm && m.rightUpperArm && m.leftLowerArm && m.rightLowerArm);

// ---- shape

function mapByShape(rig: RigDescription, pose: ReturnType<typeof restPose>): HumanoidMapping | undefined {
  const bones = rig.bones, n = bones.length, { parent, tail, head } = pose;
  const kids: number[][] = Array.from({ length: n }, () => []);
  parent.forEach((p, i) => p >= 0 && kids[p]!.push(i));
  const leaves = bones.map((_, i) => i).filter((i) => kids[i]!.length === 0);
  // a humanoid has five limbs' ends or more; past MAX_SHAPE bones it is not looked for by shape
  // (the walks below are linear per leaf, so huge trees would cost leaves × depth)
  if (leaves.length < 5 || n > MAX_SHAPE) return undefined;
  const pathUp = (i: number) => { const out: number[] = []; for (let c = i; c >= 0; c = parent[c]!) out.push(c); return out; };
  // the two lowest leaves on different branches: the feet
  const byLow = [...leaves].sort((a, b) => tail[a]![1] - tail[b]![1]);
  const footA = byLow[0]!;
  const upA = new Set(pathUp(footA));
  let footB = -1, hips = -1;
  for (const l of byLow.slice(1)) {
    const up = pathUp(l);
    const lca = up.find((c) => upA.has(c))!;
    if (lca !== l && lca !== footA && [...upA].indexOf(lca) >= 2 && up.indexOf(lca) >= 2) { footB = l; hips = lca; break; }
  }
  if (footB < 0) return undefined;
  const chainTo = (from: number, leaf: number) => pathUp(leaf).slice(0, pathUp(leaf).indexOf(from)).reverse();
  const highestIn = (root: number) => {
    let best = root;
    const stack = [root];
    while (stack.length) { const c = stack.pop()!; if (tail[c]![1] > tail[best]![1]) best = c; stack.push(...kids[c]!); }
    return best;
  };
  // spine: from the hips toward the highest point
  const legsUp = new Set([...chainTo(hips, footA), ...chainTo(hips, footB)]);
  const upKids = kids[hips]!.filter((k) => !legsUp.has(k));
  const top = upKids.length ? highestIn(upKids.reduce((a, b) => (tail[highestIn(a)]![1] >= tail[highestIn(b)]![1] ? a : b))) : hips;
  const toTop = top === hips ? [] : chainTo(hips, top);
  // the chest: the first bone on the way up with two more branches reaching out sideways
  let chestAt = -1;
  let arms: number[] = [];
  for (let k = 0; k < toTop.length; k++) {
    const c = toTop[k]!;
    const side = kids[c]!.filter((x) => x !== toTop[k + 1]);
    if (side.length >= 2) {
      const reachOf = (x: number) => {
        let best = x;
        const st = [x];
        while (st.length) {
          const y = st.pop()!;
          if (len(sub(tail[y]!, head[x]!)) > len(sub(tail[best]!, head[x]!))) best = y;
          st.push(...kids[y]!);
        }
        return best;
      };
      const ends = side.map((x) => ({ x, end: reachOf(x) })).sort((a, b) => len(sub(tail[b.end]!, head[c]!)) - len(sub(tail[a.end]!, head[c]!)));
      arms = ends.slice(0, 2).map((e) => e.end);
      chestAt = k;
      break;
    }
  }
  if (chestAt < 0 || arms.length < 2) return undefined;
  const m: HumanoidMapping = { spine: toTop.slice(0, chestAt + 1).map((i) => bones[i]!.name), neck: [] };
  const headChain = toTop.slice(chestAt + 1);
  if (headChain.length) {
    m.head = bones[headChain[headChain.length - 1]!]!.name;
    m.neck = headChain.slice(0, -1).map((i) => bones[i]!.name);
  }
  m.hips = bones[hips]!.name;
  // forward from the feet (heel to toe), left = up × forward
  const toeDir = (leaf: number) => { const c = chainTo(hips, leaf); const last = c.length - 1; return sub(tail[c[last]!]!, head[c[Math.max(0, last - 1)]!]!); };
  let fwd: V = [toeDir(footA)[0] + toeDir(footB)[0], 0, toeDir(footA)[2] + toeDir(footB)[2]];
  if (len(fwd) < 1e-9) fwd = [0, 0, 1];
  fwd = unit(fwd);
  const left = cross([0, 1, 0], fwd);
  const sideOf = (i: number): Side => (dot(sub(tail[i]!, head[hips]!), left) >= 0 ? 'left' : 'right');
  const limb = (from: number, leaf: number, names: [string, string, string, string, string]) => {
    const c = chainTo(from, leaf);
    let best = 0, bestLen = -1;
    for (let k = 0; k + 1 < c.length; k++) {
      const l = bones[c[k]!]!.length + bones[c[k + 1]!]!.length;
      if (l > bestLen + 1e-12) { bestLen = l; best = k; }
    }
    const s = sideOf(leaf);
    const put = (role: string, i: number | undefined) => { if (i !== undefined && role) (m as unknown as Record<string, string>)[`${s}${role}`] = bones[i]!.name; };
    put(names[0], best > 0 ? c[best - 1] : undefined);
    put(names[1], c[best]);
    put(names[2], c[best + 1]);
    put(names[3], c[best + 2]);
    put(names[4], c[best + 3]);
  };
  limb(hips, footA, ['HipJoint', 'UpperLeg', 'LowerLeg', 'Foot', 'Toes']);
  limb(hips, footB, ['HipJoint', 'UpperLeg', 'LowerLeg', 'Foot', 'Toes']);
  const chest = toTop[chestAt]!;
  for (const a of arms) limb(chest, a, ['Shoulder', 'UpperArm', 'LowerArm', 'Hand', '']);
  return complete(m) && m.leftUpperLeg !== m.rightUpperLeg ? m : undefined;
}

/** Largest rig searched for a humanoid by its shape (characters have tens to hundreds of bones). */
const MAX_SHAPE = 2000;

// ---- limits

const R = (a: number, b: number): AxisLimit => [a, b];
const share = (lo: number, hi: number, k: number): AxisLimit => [Math.round((lo / k) * 10) / 10, Math.round((hi / k) * 10) / 10];

/** Apply the humanoid template (and, unless switched off, the defaults) to a rig description. */
export function applyHumanoidTemplate(rig: RigDescription, options: HumanoidTemplateOptions = {}): HumanoidTemplateResult {
  const out: RigDescription = { ...rig, bones: rig.bones.map((b) => ({ ...b })) };
  const pose = restPose(out);
  const notes: string[] = [];
  let mapping = mapByNames(out);
  let method: HumanoidTemplateResult['method'] = 'names';
  if (!complete(mapping)) {
    const byShape = mapByShape(out, pose);
    if (byShape) { mapping = byShape; method = 'shape'; }
    else method = complete(mapping) ? 'names' : 'none';
  }
  if (options.mapping) {
    const known = new Set(out.bones.map((b) => b.name));
    for (const [role, bone] of Object.entries(options.mapping)) {
      const list = Array.isArray(bone) ? bone : [bone];
      for (const x of list) if (typeof x === 'string' && !known.has(x)) throw new Error(`humanoid mapping: ${role}: no bone named "${x}" in rig "${rig.name}"`);
      (mapping as unknown as Record<string, unknown>)[role] = bone;
    }
    if (method === 'none' && complete(mapping)) method = 'names';
  }
  const index = new Map(out.bones.map((b, i) => [b.name, i]));
  const { parent } = pose; // rolls turn bones about their own axes: the rest pose stays
  const templated: string[] = [];
  const defaulted: string[] = [];

  if (method !== 'none') {
    const facing = forwardOf(out, mapping, pose, method);
    const fwd = facing.fwd;
    if (facing.flipped) notes.push('the toes point against the left/right names: forward taken as the way the names face');
    const at = (name?: string) => (name === undefined ? -1 : index.get(name) ?? -1);
    const give = (name: string | undefined, t: RoleTemplate | null) => {
      const i = at(name);
      if (i < 0 || !t) return;
      rollTo(out, i, parent, t.bend);
      out.bones[i]!.limits = t.limits;
      templated.push(out.bones[i]!.name);
    };
    const counts = { spine: 0, neck: 0 };
    for (const s of ['left', 'right'] as const) {
      for (const part of ['UpperLeg', 'LowerLeg', 'Foot', 'Toes', 'Shoulder', 'UpperArm', 'LowerArm', 'Hand'] as const) {
        give(mapping[`${s}${part}`], roleTemplate(`${s}${part}`, counts, fwd));
      }
      const hj = at(mapping[`${s}HipJoint`]);
      if (hj >= 0 && parent[hj]! >= 0) { out.bones[hj]!.limits = { x: [0, 0], y: [0, 0], z: [0, 0] }; templated.push(out.bones[hj]!.name); }
    }
    const spine = mapping.spine.filter((b) => at(b) >= 0 && parent[at(b)]! >= 0);
    const neck = mapping.neck.filter((b) => at(b) >= 0);
    counts.spine = spine.length;
    counts.neck = neck.length;
    for (const b of spine) give(b, roleTemplate('spine', counts, fwd));
    for (const b of neck) give(b, roleTemplate('neck', counts, fwd));
    give(mapping.head, roleTemplate('head', counts, fwd));
    const shown = (Object.entries(mapping) as [string, string | string[]][]).filter(([, v]) => (Array.isArray(v) ? v.length > 0 : !!v)).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : v}`);
    notes.push(`humanoid recognised by ${method === 'names' ? 'bone names' : "the skeleton's shape"} (${templated.length} bones limited): ${shown.join('; ')}`);
  } else {
    notes.push('no humanoid recognised (expected hips, two legs and two arms by name or by shape)');
  }
  if (options.defaults ?? true) {
    const done = new Set(templated);
    out.bones.forEach((b, i) => {
      if (parent[i]! < 0 || done.has(b.name) || b.limits) return;
      b.limits = { x: R(-135, 135), y: R(-90, 90), z: R(-135, 135) };
      defaulted.push(b.name);
    });
    if (defaulted.length) notes.push(`${defaulted.length} other bone(s) limited to ±135° of swing and ±90° of twist, so no limb folds back through its parent`);
  }
  return { rig: out, mapping, method, templated, defaulted, notes };
}

/** A role of the template: one of the named ones, or one of the spine's or neck's bones. */
export type TemplateRole = HumanoidRole | 'spine' | 'neck';

/** Every role a bone can be given, in the order a person reads them (head to toes, left first). */
export const TEMPLATE_ROLES: readonly TemplateRole[] = [
  'hips', 'spine', 'neck', 'head',
  'leftShoulder', 'leftUpperArm', 'leftLowerArm', 'leftHand', 'rightShoulder', 'rightUpperArm', 'rightLowerArm', 'rightHand',
  'leftHipJoint', 'leftUpperLeg', 'leftLowerLeg', 'leftFoot', 'leftToes', 'rightHipJoint', 'rightUpperLeg', 'rightLowerLeg', 'rightFoot', 'rightToes',
];

/** What the template gives a role: the way the bone bends (its x axis is to be direction × bend) and its limits. */
interface RoleTemplate { bend: V; limits: Limits }

/**
 * The template's limits of a role (null: the template gives it none of its own: the hips, a
 * hip joint, which is locked instead). `counts`: how many spine and neck bones share those
 * ranges; `fwd`: the figure's forward.
 */
function roleTemplate(role: TemplateRole, counts: { spine: number; neck: number }, fwd: V): RoleTemplate | null {
  const up: V = [0, 1, 0], back: V = [-fwd[0], 0, -fwd[2]];
  const hinge = (bendRange: AxisLimit, twist: number): Limits => ({ x: bendRange, y: R(-twist, twist), z: R(-5, 5) });
  const part = role.replace(/^(left|right)/, '');
  const sp = Math.max(1, counts.spine), nk = Math.max(1, counts.neck);
  switch (part) {
    case 'UpperLeg': return { bend: fwd, limits: { x: R(-20, 120), y: R(-40, 40), z: R(-40, 40) } };
    case 'LowerLeg': return { bend: back, limits: hinge(R(0, 150), 10) };
    case 'Foot': return { bend: up, limits: { x: R(-45, 25), y: R(-15, 15), z: R(-25, 25) } };
    case 'Toes': return { bend: up, limits: { x: R(-30, 60), y: R(-5, 5), z: R(-10, 10) } };
    case 'Shoulder': return { bend: fwd, limits: { x: R(-20, 20), y: R(-20, 20), z: R(-20, 20) } };
    case 'UpperArm': return { bend: fwd, limits: { x: R(-60, 150), y: R(-90, 90), z: R(-90, 90) } };
    case 'LowerArm': return { bend: fwd, limits: hinge(R(0, 150), 80) };
    case 'Hand': return { bend: fwd, limits: { x: R(-70, 70), y: R(-20, 20), z: R(-30, 30) } };
    case 'spine': return { bend: fwd, limits: { x: share(-40, 80, sp), y: share(-60, 60, sp), z: share(-45, 45, sp) } };
    case 'neck': return { bend: fwd, limits: { x: share(-40, 50, nk), y: share(-60, 60, nk), z: share(-35, 35, nk) } };
    case 'head': return { bend: fwd, limits: { x: R(-30, 30), y: R(-40, 40), z: R(-25, 25) } };
    default: return null;
  }
}

/** The limits the template gives a bone it maps to no role: no limb folds back through its parent. */
export const DEFAULT_LIMITS: Readonly<Limits> = { x: [-135, 135], y: [-90, 90], z: [-135, 135] };

/** The figure's forward: the way the toes point (else +Z), turned round when the left/right names say the other way. */
function forwardOf(rig: RigDescription, mapping: HumanoidMapping, pose: ReturnType<typeof restPose>, method: HumanoidTemplateResult['method']): { fwd: V; flipped: boolean } {
  const index = new Map(rig.bones.map((b, i) => [b.name, i]));
  const at = (name?: string) => (name === undefined ? -1 : index.get(name) ?? -1);
  const { head, tail } = pose;
  let fwd: V = [0, 0, 0];
  for (const s of ['left', 'right'] as const) {
    const foot = at(mapping[`${s}Foot`]), toes = at(mapping[`${s}Toes`]);
    const tip = toes >= 0 ? tail[toes]! : foot >= 0 ? tail[foot]! : undefined;
    if (foot >= 0 && tip) { const d = sub(tip, head[foot]!); fwd = [fwd[0] + d[0], 0, fwd[2] + d[2]]; }
  }
  fwd = len(fwd) > 1e-9 ? unit(fwd) : [0, 0, 1];
  // a figure's left hand must be on its left: if the names say otherwise, forward is the other way
  const lh = at(mapping.leftUpperLeg), rh = at(mapping.rightUpperLeg);
  if (lh >= 0 && rh >= 0 && dot(sub(tail[lh]!, tail[rh]!), cross([0, 1, 0], fwd)) < 0 && method === 'names') {
    return { fwd: [-fwd[0], 0, -fwd[2]], flipped: true };
  }
  return { fwd, flipped: false };
}

/** The way a humanoid figure faces (horizontal, unit): where its toes point (else +Z); null when no foot is mapped. */
export function facingOf(rig: RigDescription, mapping: HumanoidMapping): Vec3Tuple | null {
  if (!mapping.leftFoot && !mapping.rightFoot) return null;
  return forwardOf(rig, mapping, restPose(rig), 'names').fwd;
}

/** The role bone `bone` has in `mapping`, or null. */
export function roleOf(mapping: HumanoidMapping, bone: string): TemplateRole | null {
  if (mapping.spine.includes(bone)) return 'spine';
  if (mapping.neck.includes(bone)) return 'neck';
  for (const role of TEMPLATE_ROLES) if (role !== 'spine' && role !== 'neck' && mapping[role] === bone) return role;
  return null;
}

/**
 * `mapping` with bone `bone` given role `role` (null: no role): it leaves the role it had, and
 * a single role's bone before it loses that role. A new mapping; the input is not changed.
 */
export function withRole(mapping: HumanoidMapping, bone: string, role: TemplateRole | null): HumanoidMapping {
  const out: HumanoidMapping = { ...mapping, spine: mapping.spine.filter((b) => b !== bone), neck: mapping.neck.filter((b) => b !== bone) };
  const roles = out as unknown as Record<string, unknown>;
  for (const r of TEMPLATE_ROLES) if (r !== 'spine' && r !== 'neck' && roles[r] === bone) delete roles[r];
  if (role === 'spine' || role === 'neck') out[role] = [...out[role], bone];
  else if (role !== null) out[role] = bone;
  return out;
}

/**
 * The limits the template gives bone `bone` of `rig` (a built rig's description: its rolls as
 * they are) in role `role` (null: the defaults), in that bone's own joint frame. The template
 * wants the bone's x axis across the way it bends; the bone is not rolled again (a built rig's
 * frames stay), so the limits are turned by the quarter turns about the bone nearest to the
 * roll it would have had: exact when the bone was rolled for its first role (a knee's bend
 * then goes the other way round, say, and the hinge is mirrored to follow). `mapping` gives
 * the figure's forward and how many bones share the spine's and neck's ranges.
 */
export function roleLimits(rig: RigDescription, mapping: HumanoidMapping, bone: string, role: TemplateRole | null): Limits {
  const b = rig.bones.find((x) => x.name === bone);
  if (!b) throw new Error(`no bone named "${bone}" in rig "${rig.name}"`);
  const m = withRole(mapping, bone, role);
  const t = role === null ? null : roleTemplate(role, { spine: m.spine.length, neck: m.neck.length }, forwardOf(rig, m, restPose(rig), 'names').fwd);
  if (!t) return role === 'leftHipJoint' || role === 'rightHipJoint' ? { x: [0, 0], y: [0, 0], z: [0, 0] } : { ...DEFAULT_LIMITS };
  const d = unit(b.direction);
  const axis = cross(d, t.bend);
  if (len(axis) < 1e-6) return t.limits;
  const want = unit(axis);
  const have = rotate(restRotation(b), [1, 0, 0]);
  // the turn about the bone from its x axis to the one wanted, in quarter turns
  const k = ((Math.round(Math.atan2(dot(d, cross(have, want)), dot(have, want)) / (Math.PI / 2)) % 4) + 4) % 4;
  const lx = t.limits.x as [number, number], ly = t.limits.y!, lz = t.limits.z as [number, number];
  const neg = (l: [number, number]): AxisLimit => [l[1] === 0 ? 0 : -l[1], l[0] === 0 ? 0 : -l[0]];
  // a rotation vector's x' and z' (the wanted frame) in the bone's frame, turned k quarter turns about y
  switch (k) {
    case 1: return { x: lz, y: ly, z: neg(lx) };
    case 2: return { x: neg(lx), y: ly, z: neg(lz) };
    case 3: return { x: neg(lz), y: ly, z: lx };
    default: return t.limits;
  }
}

/**
 * Roll bone i about its own axis so its x axis is d × bend (a positive x rotation then moves
 * its tail toward `bend`), re-expressing its children's offsets so no joint moves.
 */
function rollTo(rig: RigDescription, i: number, parent: number[], bend: V): void {
  const b = rig.bones[i]!;
  const d = unit(b.direction);
  const axis = cross(d, bend);
  if (len(axis) < 1e-6) return; // the bone points the way it bends: keep its roll
  const x = unit(axis);
  const before = restRotation(b);
  const q0 = new Float64Array(4);
  quatFromDirectionRoll(q0, 0, d[0], d[1], d[2], 0);
  const x0 = rotate([q0[0]!, q0[1]!, q0[2]!, q0[3]!], [1, 0, 0]);
  const roll = (Math.atan2(dot(d, cross(x0, x)), dot(x0, x)) * 180) / Math.PI;
  b.roll = roll;
  const after = restRotation(b);
  rig.bones.forEach((c, k) => {
    if (parent[k] !== i) return;
    const off: V = c.offset ?? [0, (c.attach ?? 1) * b.length, 0];
    const w = rotate(before, off);
    const o = rotate(conj(after), w);
    const clean = (v: number) => (Math.abs(v) < 1e-15 ? 0 : v);
    c.offset = [clean(o[0]), clean(o[1]), clean(o[2])];
    delete c.attach;
  });
}
