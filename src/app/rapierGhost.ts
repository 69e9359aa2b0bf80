/**
 * The sandbox's Rapier ghost: the rigs of the page's world mirrored into Rapier (src/rapier,
 * `buildRapierMirror`), stepped after every PhysIK step and drawn by the view's 'rapier'
 * ghost layer, with the live distance between the two rigs' bone tips.
 *
 * - Lazy: `createRapierGhost` imports src/rapier with a dynamic `import()` (its own chunk) and
 *   loads Rapier through the shared once-only promise (src/rapier/load.ts); nothing of Rapier is
 *   fetched before the first ghost is asked for, and later ghosts reuse the initialised module.
 * - Targets: each mirror step reads the effective targets PhysIK used in its step (a drag, an
 *   edit, the scene's script: whatever moved PhysIK's targets pulls the mirror too).
 * - Kept in step with the world: before stepping (and on `sync()`, every animation frame) the
 *   mirrored rigs are checked against the world's. A rig replaced, added or removed (a scene
 *   loaded or dropped, a crowd spawned) rebuilds the mirrors; a rig whose step counter did not
 *   advance by one since its mirror's last step (reset, rewound to a recorded frame) has its
 *   mirror rebuilt from PhysIK's current state. A mirror starts from PhysIK's pose and velocities.
 * - Several rigs (a crowd): the first MAX_RAPIER_RIGS rigs are mirrored while their bones stay
 *   within the joint model's budget (multibody joints cost about bones^2.7 per step).
 *
 * The distance, after every step: per mirrored rig the largest distance between a bone's tail
 * in PhysIK and in Rapier, and that over the rig's height; `max` and `normalized` are the
 * largest over the rigs. Not finite when either side went non-finite.
 */
import type { PhysikWorld } from '../core';
import type { RigRecord } from '../world/world';
import type { GhostFrame, GhostSource } from '../render/ghostLayers';
import { jointRadiusOf } from '../render/shapes';
import type { JointModel, RapierMirror, Rapier } from '../rapier';
import { rapierJointModels } from './rapierChoices';

/** Most rigs mirrored (a crowd's first ones). */
export const MAX_RAPIER_RIGS = 16;
/** Most bones mirrored, per joint model (multibody joints cost about bones^2.7 per step). */
export const RAPIER_BONE_BUDGET: Record<JointModel, number> = { impulse: 2000, multibody: 120 };

export interface RapierDistance {
  /** Largest tip distance between PhysIK and Rapier over the mirrored rigs' bones (world units). */
  max: number;
  /** Largest over the mirrored rigs of (its largest tip distance ÷ its height). */
  normalized: number;
  /** The bone with the largest normalised distance ('' before the first step). */
  bone: string;
  /** Both sides finite (every mirror's state and every PhysIK tail). */
  finite: boolean;
  /** Every mirror at rest by PhysIK's own test (every bone end slower than restSpeed × height) after the last step. */
  resting: boolean;
  /** Rigs mirrored, and rigs in the world. */
  rigs: number;
  of: number;
  /** Mirror steps since the ghost was switched on (rebuilds included). */
  steps: number;
  /** Mirrors built since the ghost was switched on (the first build included). */
  builds: number;
  jointModel: JointModel;
}

export interface RapierGhost {
  readonly jointModel: JointModel;
  /** For the view's 'rapier' ghost layer: every mirrored bone, head, rotation, length. */
  readonly source: GhostSource;
  /** Rebuild the mirrors of rigs that changed (see the header); true when any was rebuilt. */
  sync(): boolean;
  /** After a PhysIK step of the world: sync, then step each mirror once; returns the wall time (ms). */
  step(): number;
  /** The distance after the last step or rebuild. */
  distance(): Readonly<RapierDistance>;
  /** The mirrors, one per mirrored rig (entity id), in the world's rig order (current until the next sync or step). */
  mirrors(): { rig: number; mirror: RapierMirror }[];
  /** Free every Rapier world (the ghost is unusable afterwards). */
  dispose(): void;
}

interface Entry {
  record: RigRecord;
  mirror: RapierMirror;
  /** Rig.step when the mirror last matched PhysIK's state (built or stepped). */
  step: number;
  /** Offset of its bones in the frame arrays, and its tips. */
  first: number;
  tips: Float64Array;
  heads: Float64Array;
  rots: Float64Array;
  height: number;
}

/** Load Rapier (once per page) and mirror the world's rigs with `jointModel` joints. */
export async function createRapierGhost(world: PhysikWorld, jointModel: JointModel): Promise<RapierGhost> {
  if (!rapierJointModels.includes(jointModel)) throw new Error(`Rapier ghost: joint model must be one of ${rapierJointModels.join(', ')}, got "${String(jointModel)}"`);
  const rapier = await import('../rapier'); // its own chunk: fetched on the first ghost only
  const R = await rapier.loadRapier();
  return new Ghost(world, jointModel, R, rapier.buildRapierMirror);
}

type Build = (R: Rapier, world: PhysikWorld, rig: number, options: { jointModel: JointModel }) => RapierMirror;

class Ghost implements RapierGhost {
  readonly source: GhostSource;
  private entries: Entry[] = [];
  private readonly frameData: GhostFrame = { count: 0, head: new Float64Array(0), rot: new Float64Array(0), length: new Float64Array(0), jointRadius: new Float64Array(0) };
  private readonly dist: RapierDistance;
  private disposed = false;

  constructor(private readonly world: PhysikWorld, readonly jointModel: JointModel, private readonly R: Rapier, private readonly build: Build) {
    this.dist = { max: 0, normalized: 0, bone: '', finite: true, resting: false, rigs: 0, of: 0, steps: 0, builds: 0, jointModel };
    this.source = () => this.frame();
    this.rebuildAll();
  }

  /** The rigs to mirror: the world's first ones within the limits; throws when even the first is over the budget. */
  private wanted(): RigRecord[] {
    const rigs = this.world.physik.rigs, budget = RAPIER_BONE_BUDGET[this.jointModel];
    const out: RigRecord[] = [];
    let bones = 0;
    for (const r of rigs) {
      if (out.length >= MAX_RAPIER_RIGS || bones + r.bones.length > budget) break;
      out.push(r);
      bones += r.bones.length;
    }
    if (out.length === 0 && rigs.length > 0) {
      throw new Error(`Rapier ghost: rig "${rigs[0]!.name}" has ${rigs[0]!.bones.length} bones; with ${this.jointModel} joints the ghost mirrors at most ${budget}` +
        (this.jointModel === 'multibody' ? ' (their cost grows about as bones^2.7): use impulse joints' : ''));
    }
    return out;
  }

  private disposeEntries(): void {
    // after a panic inside Rapier its memory may still be borrowed and freeing throws: nothing more to free then
    for (const e of this.entries) try { e.mirror.dispose(); } catch { /* see above */ }
    this.entries = [];
  }

  private rebuildAll(): void {
    const want = this.wanted(); // throws before anything is freed
    const built: Entry[] = [];
    let first = 0;
    try {
      for (const record of want) {
        const n = record.bones.length;
        built.push({
          record, mirror: this.buildMirror(record), step: this.world.physik.Rig.step[record.eid]!, first,
          tips: new Float64Array(3 * n), heads: new Float64Array(3 * n), rots: new Float64Array(4 * n),
          height: this.world.physik.Rig.height[record.eid]!,
        });
        first += n;
      }
    } catch (e) {
      for (const b of built) b.mirror.dispose();
      throw e;
    }
    this.disposeEntries();
    this.entries = built;
    const f = this.frameData, { Bone } = this.world.physik;
    f.head = new Float64Array(3 * first); f.rot = new Float64Array(4 * first);
    f.length = new Float64Array(first); f.jointRadius = new Float64Array(first);
    f.count = first;
    for (const e of built) {
      const jr = jointRadiusOf(e.height);
      e.record.bones.forEach((b, i) => { f.length[e.first + i] = Bone.length[b]!; f.jointRadius[e.first + i] = jr; });
    }
    this.dist.rigs = built.length;
    this.measure();
  }

  private buildMirror(record: RigRecord): RapierMirror {
    this.dist.builds++;
    return this.build(this.R, this.world, record.eid, { jointModel: this.jointModel });
  }

  private rebuild(e: Entry): void {
    const mirror = this.buildMirror(e.record);
    e.mirror.dispose();
    e.mirror = mirror;
    e.step = this.world.physik.Rig.step[e.record.eid]!;
  }

  /** Same rigs as the world's first ones (no allocation). */
  private sameRigs(): boolean {
    const rigs = this.world.physik.rigs;
    if (this.entries.length > rigs.length) return false;
    for (let i = 0; i < this.entries.length; i++) if (this.entries[i]!.record !== rigs[i]) return false;
    // a rig more that would fit (a crowd spawned beside a mirrored main rig)
    if (this.entries.length < rigs.length && this.entries.length < MAX_RAPIER_RIGS) {
      let bones = 0;
      for (const e of this.entries) bones += e.record.bones.length;
      if (bones + rigs[this.entries.length]!.bones.length <= RAPIER_BONE_BUDGET[this.jointModel]) return false;
    }
    return true;
  }

  sync(): boolean {
    this.check();
    if (!this.sameRigs()) { this.rebuildAll(); return true; }
    const { Rig } = this.world.physik;
    let any = false;
    for (const e of this.entries) {
      if (Rig.step[e.record.eid] !== e.step) { this.rebuild(e); any = true; }
    }
    if (any) this.measure();
    return any;
  }

  step(): number {
    this.check();
    const t0 = performance.now();
    if (!this.sameRigs()) this.rebuildAll();
    else {
      const { Rig } = this.world.physik;
      for (const e of this.entries) {
        const now = Rig.step[e.record.eid]!;
        // PhysIK took exactly one step since the mirror matched it: follow; otherwise start over from its state
        if (now === e.step + 1) { e.mirror.step(); e.step = now; this.dist.steps++; } else this.rebuild(e);
      }
      this.measure();
    }
    return performance.now() - t0;
  }

  private measure(): void {
    const { Bone } = this.world.physik;
    const d = this.dist;
    d.max = 0; d.normalized = 0; d.finite = true; d.resting = true;
    d.of = this.world.physik.rigs.length;
    let best = -1;
    for (const e of this.entries) {
      if (!e.mirror.finite()) d.finite = false;
      if (!(e.mirror.maxEndSpeed() < e.record.settings.restSpeed * e.height)) d.resting = false;
      e.mirror.tipPositions(e.tips);
      const bones = e.record.bones;
      for (let i = 0; i < bones.length; i++) {
        const b = bones[i]! * 3, t = i * 3;
        const dist = Math.hypot(Bone.tail[b]! - e.tips[t]!, Bone.tail[b + 1]! - e.tips[t + 1]!, Bone.tail[b + 2]! - e.tips[t + 2]!);
        if (!Number.isFinite(dist)) { d.finite = false; continue; }
        if (dist > d.max) d.max = dist;
        const n = dist / e.height;
        if (n > best) { best = n; d.bone = e.record.boneNames[i]!; }
      }
    }
    d.normalized = Math.max(0, best);
  }

  private frame(): GhostFrame | null {
    if (this.disposed) return null;
    const f = this.frameData;
    for (const e of this.entries) {
      e.mirror.headPositions(e.heads);
      e.mirror.rotations(e.rots);
      f.head.set(e.heads, e.first * 3);
      f.rot.set(e.rots, e.first * 4);
    }
    return f;
  }

  distance(): Readonly<RapierDistance> {
    return this.dist;
  }

  mirrors(): { rig: number; mirror: RapierMirror }[] {
    return this.entries.map((e) => ({ rig: e.record.eid, mirror: e.mirror }));
  }

  private check(): void {
    if (this.disposed) throw new Error('Rapier ghost: used after dispose()');
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.disposeEntries();
  }
}
