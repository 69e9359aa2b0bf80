/**
 * Physics on top of motion in the sandbox (the logic; the panel's "Motion" folder is
 * motionPanel.ts, the clip's ghost src/render/clipGhost.ts): an imported character whose file
 * carries motion (a BVH's MOTION, a .glb's or embedded .gltf's first animation) plays that clip
 * through the physics, as `physik capture` does headless (src/capture/): markers tie chosen bones
 * to the clip, PhysIK moves the rest.
 *
 * - Markers, by preset: "hips, hands and feet" (world markers at the heads of the bones the
 *   humanoid template calls hips, hands and feet: the capture-walk scene's set), "all joints
 *   driven" (a pose-space drive on every joint) or "none (clip only)" (every bone follows the
 *   clip exactly: the clip as it is, no physics added); or "chosen per bone": each bone tied by
 *   a world marker at its head, a pose drive or following exactly, or free (`tie`, which starts
 *   from the set in effect), a tied bone with its own multipliers (`scaleTie`).
 * - Stiffness and damping-ratio multipliers of the capture's own (10000 /s², critical): live,
 *   each a finite number (stiffness > 0, damping ≥ 0, both at most 100); anything else is
 *   refused with a message and never reaches the world.
 * - While on, the rig runs at the clip's frame time with the capture's settings
 *   (captureSettings), the scene's own control points switched off and the limits widened to
 *   the clip's range; the clip time is the clip's start plus the rig's step × dt, so it
 *   advances with the simulation (play/pause, single steps, a recording rewound). At the
 *   clip's end the simulation pauses; play goes on from the start. Off, everything goes back
 *   as it was (settings, the points' on/off, limits); the pose stays.
 * - `read()` is the debug read the page's test handle gives (`window.__physik.motion.read()`).
 */
import { addSystem, getSettings, removeSystem, setControlPointActive, setSettings, type PhysikWorld } from '../core';
import { findRig, type RigRecord } from '../world/world';
import { applyDerivedSettings } from '../world/derivedSettings';
import { attachmentPoint } from '../world/attachment';
import { poseDriveOf, sampleTrackPose } from '../world/clipPose';
import type { CaptureMarkerDescription, RigDescription, Settings } from '../world/types';
import { applyHumanoidTemplate, type HumanoidMapping } from '../io/humanoid';
import { attachClip, captureSettings, detachClip, DEFAULT_CAPTURE_STIFFNESS, type CaptureHandle } from '../capture/capture';
import { bindClip } from '../capture/bind';
import { dropReferenceFrame, motionFromBvh, type SourceMotion } from '../capture/source';
import { POSE_DRIVE, POSE_FOLLOW, POSE_FREE, type PoseTrack } from '../../components/PoseDrive';

export type MotionPreset = 'ends' | 'all' | 'none' | 'custom';
/** The presets as the panel names them. */
export const MOTION_PRESETS: Readonly<Record<MotionPreset, string>> = {
  ends: 'hips, hands and feet',
  all: 'all joints driven',
  none: 'none (clip only)',
  custom: 'chosen per bone',
};
/** How a bone is tied to the clip: a world marker at its head, a pose drive, followed exactly; a bone with none is free. */
export type BoneTie = 'marker' | 'drive' | 'follow';
/** The ties (and free) as the panel names them. */
export const BONE_TIES: Readonly<Record<BoneTie | 'free', string>> = {
  free: 'free',
  marker: 'world marker',
  drive: 'pose drive',
  follow: 'follows exactly',
};
/** The largest multiplier the panel takes. */
export const MOTION_MULTIPLIER_MAX = 100;

export interface MotionOptions {
  preset: MotionPreset;
  /** × the capture's stiffness (DEFAULT_CAPTURE_STIFFNESS). */
  stiffness: number;
  /** × the capture's damping ratio (1, critical). */
  damping: number;
  /** The "chosen per bone" set: each tied bone by name (the others free). */
  ties: Readonly<Record<string, BoneTie>>;
  /** Per tied bone of that set: its own multipliers of the capture's stiffness and damping (1 when not listed). */
  tieScales: Readonly<Record<string, TieScale>>;
}
/** A tied bone's own multipliers of the capture's stiffness and damping ratio. */
export interface TieScale { stiffness: number; damping: number }
export const DEFAULT_MOTION_OPTIONS: Readonly<MotionOptions> = { preset: 'ends', stiffness: 1, damping: 1, ties: {}, tieScales: {} };

/** What the debug read gives (lengths ÷ the rig's height). */
export interface MotionRead {
  /** Whether the clip plays through the physics now. */
  on: boolean;
  /** Whether the character's file has a clip loaded (null: not read yet or none). */
  clip: { name: string; fps: number; frames: number; duration: number } | null;
  preset: MotionPreset;
  stiffness: number;
  damping: number;
  /** Clip time (s) the rig stands at (0 when off). */
  time: number;
  /** The clip has reached its end (the simulation paused there). */
  ended: boolean;
  /** Largest distance between a ghost (clip) bone's head or tail and the physics rig's, now, and that bone. */
  ghostDistance: number;
  ghostBone: string;
  /** The world markers' largest distance from the clip now, and the most since Motion was turned on. */
  markerStray: number;
  markerStrayMax: number;
  /** Per marker bone: its distance now and the most since on. */
  markers: { marker: string; bone: string; now: number; max: number }[];
  /** The largest difference of a bone no marker ties, since on. */
  freeMax: number;
  steps: number;
  notes: string[];
}

/** A multiplier from the panel, checked: a finite number in range, else an Error saying what was wrong. */
export function checkMultiplier(value: unknown, what: 'stiffness' | 'damping'): number {
  const v = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  const min = what === 'stiffness' ? 'more than 0' : '0 or more';
  if (typeof v !== 'number' || !Number.isFinite(v) || (what === 'stiffness' ? v <= 0 : v < 0) || v > MOTION_MULTIPLIER_MAX) {
    throw new Error(`${what} multiplier: expected a number ${min} and at most ${MOTION_MULTIPLIER_MAX}, got ${typeof value === 'string' ? `"${value}"` : String(value)}`);
  }
  return v;
}

/** Options checked as a whole (a preset by name, the multipliers, the ties); throws naming the first bad one. */
export function checkMotionOptions(o: Partial<MotionOptions>, base: MotionOptions = DEFAULT_MOTION_OPTIONS): MotionOptions {
  const preset = o.preset ?? base.preset;
  if (!(preset in MOTION_PRESETS)) throw new Error(`markers: expected ${Object.keys(MOTION_PRESETS).map((k) => `"${k}"`).join(', ')}, got ${JSON.stringify(preset)}`);
  let ties = base.ties;
  if (o.ties !== undefined) {
    if (typeof o.ties !== 'object' || o.ties === null || Array.isArray(o.ties)) throw new Error(`ties: expected an object of bone name to tie, got ${JSON.stringify(o.ties)}`);
    for (const [bone, tie] of Object.entries(o.ties)) {
      if (tie !== 'marker' && tie !== 'drive' && tie !== 'follow') throw new Error(`tie of "${bone}": expected "marker", "drive" or "follow", got ${JSON.stringify(tie)}`);
    }
    ties = { ...o.ties };
  }
  let tieScales = base.tieScales;
  if (o.tieScales !== undefined) {
    if (typeof o.tieScales !== 'object' || o.tieScales === null || Array.isArray(o.tieScales)) throw new Error(`tie multipliers: expected an object of bone name to { stiffness, damping }, got ${JSON.stringify(o.tieScales)}`);
    const checked: Record<string, TieScale> = {};
    for (const [bone, sc] of Object.entries(o.tieScales)) {
      const at = (e: unknown) => new Error(`tie of "${bone}": ${e instanceof Error ? e.message : String(e)}`);
      try {
        checked[bone] = { stiffness: checkMultiplier(sc?.stiffness, 'stiffness'), damping: checkMultiplier(sc?.damping, 'damping') };
      } catch (e) { throw at(e); }
    }
    tieScales = checked;
  }
  return {
    preset,
    stiffness: o.stiffness === undefined ? base.stiffness : checkMultiplier(o.stiffness, 'stiffness'),
    damping: o.damping === undefined ? base.damping : checkMultiplier(o.damping, 'damping'),
    ties,
    tieScales,
  };
}

/**
 * The markers of a "chosen per bone" set on a rig whose bones are `bones`: a group per kind of tie
 * and pair of multipliers (`scales`, 1 and 1 for a bone not listed). Throws naming a bone the rig
 * does not have.
 */
export function markersForTies(ties: Readonly<Record<string, BoneTie>>, bones: readonly string[], scales: Readonly<Record<string, TieScale>> = {}): CaptureMarkerDescription[] {
  const groups = new Map<string, CaptureMarkerDescription>();
  const names: Record<BoneTie, string> = { marker: 'markers', drive: 'drives', follow: 'followed' };
  for (const [bone, tie] of Object.entries(ties)) {
    if (!bones.includes(bone)) throw new Error(`tie of "${bone}": this rig has no bone of that name`);
    const sc = scales[bone] ?? { stiffness: 1, damping: 1 };
    const key = `${tie} ${sc.stiffness} ${sc.damping}`;
    let g = groups.get(key);
    if (!g) {
      const scaled = sc.stiffness !== 1 || sc.damping !== 1;
      g = {
        name: scaled ? `${names[tie]} ×${sc.stiffness} ×${sc.damping}` : names[tie],
        kind: tie === 'marker' ? 'world' : 'pose',
        ...(tie === 'follow' ? { mode: 'follow' as const } : {}),
        ...(scaled ? { stiffness: sc.stiffness, damping: sc.damping } : {}),
        bones: [],
      };
      groups.set(key, g);
    }
    g.bones.push(bone);
  }
  return [...groups.values()];
}

/** The ties a set of markers amounts to, per bone (world markers, pose drives, follows; a bone in none is free). */
function tiesOfMarkers(markers: readonly CaptureMarkerDescription[]): Record<string, BoneTie> {
  const ties: Record<string, BoneTie> = {};
  for (const m of markers) {
    for (const bone of m.bones) ties[bone] = m.kind === 'world' ? 'marker' : m.mode === 'follow' ? 'follow' : 'drive';
  }
  return ties;
}

/** The markers of a preset on a rig whose bones are `bones`, with its humanoid mapping (for "hips, hands and feet"); "chosen per bone" is markersForTies. */
export function markersForPreset(preset: Exclude<MotionPreset, 'custom'>, bones: readonly string[], mapping: HumanoidMapping): CaptureMarkerDescription[] {
  if (preset === 'all') return [{ name: 'drive', kind: 'pose', bones: [...bones] }];
  if (preset === 'none') return [{ name: 'clip', kind: 'pose', mode: 'follow', bones: [...bones] }];
  const groups: [string, (keyof HumanoidMapping)[]][] = [['hips', ['hips']], ['hands', ['leftHand', 'rightHand']], ['feet', ['leftFoot', 'rightFoot']]];
  const out: CaptureMarkerDescription[] = [];
  const missing: string[] = [];
  for (const [name, roles] of groups) {
    const list = roles.map((r) => mapping[r]).filter((b): b is string => typeof b === 'string' && bones.includes(b));
    if (list.length < roles.length) missing.push(name);
    else out.push({ name, kind: 'world', bones: list });
  }
  if (missing.length) {
    throw new Error(`the humanoid template found no ${missing.join(' or ')} in this rig, so "${MOTION_PRESETS.ends}" cannot be placed: choose "${MOTION_PRESETS.all}" or "${MOTION_PRESETS.none}"`);
  }
  return out;
}

/** The character file's motion: a BVH's MOTION (its reference frame dropped), or a glTF's first animation. */
export async function readClip(file: { fileName: string; data: ArrayBuffer | string }): Promise<SourceMotion> {
  const ext = (/\.([^.]+)$/.exec(file.fileName)?.[1] ?? '').toLowerCase();
  if (ext === 'bvh') {
    const text = typeof file.data === 'string' ? file.data : new TextDecoder().decode(file.data);
    return dropReferenceFrame(motionFromBvh(text, file.fileName));
  }
  if (ext === 'glb' || ext === 'gltf') {
    const { motionFromGltf } = await import('../capture/gltfMotion');
    const data = typeof file.data === 'string' ? file.data : new Uint8Array(file.data);
    return dropReferenceFrame(await motionFromGltf(data, file.fileName));
  }
  throw new Error(`${file.fileName}: only a .bvh, .glb or .gltf character carries motion`);
}

export interface MotionHost {
  world: PhysikWorld;
  /** The rig shown (changes when another scene is loaded). */
  readonly rig: number;
  /** The character file the rig was imported from, or null. */
  readonly file: { name: string; fileName: string; data: ArrayBuffer | string } | null;
  /** The rig's description (for the humanoid mapping). */
  rigDescription(): RigDescription;
  setPaused(p: boolean): void;
  readonly paused: boolean;
  /** The sandbox's own reset (the rig to its starting pose). */
  reset(): void;
}

/** One frame of the clip's pose on the rig (the ghost draws it): heads, world rotations, lengths. */
export interface ClipFrame {
  count: number;
  head: Float64Array;
  rot: Float64Array;
  length: Float64Array;
  jointRadius: Float64Array;
}

export interface Motion {
  readonly on: boolean;
  readonly options: Readonly<MotionOptions>;
  /** Read the current character's clip (once per file); throws when there is no file or no motion in it. */
  load(): Promise<SourceMotion>;
  /** Play the clip through the physics from its start (loads it first); throws, the world unchanged, when refused. */
  start(options?: Partial<MotionOptions>): Promise<void>;
  /** Stop: settings, points and limits back as they were; the pose stays. */
  stop(): void;
  /** Change the markers or multipliers: multipliers live, a preset or ties by restarting at the clip time shown. Throws, nothing changed, when refused. */
  set(options: Partial<MotionOptions>): Promise<void>;
  /** Tie one bone (or free it): the set becomes "chosen per bone", starting from the set in effect. Throws, nothing changed, when refused. */
  tie(bone: string, tie: BoneTie | 'free'): Promise<void>;
  /** How a bone is tied now (while on: as the clip plays it; off: by the chosen set if that is the preset, else free). */
  tieOf(bone: string): BoneTie | 'free';
  /** A tied bone's own multipliers: the set becomes "chosen per bone" as for `tie`. Throws, nothing changed, when the bone is free or a value is refused. */
  scaleTie(bone: string, scale: Partial<TieScale>): Promise<void>;
  /** A bone's own multipliers (1 and 1 unless the chosen set gives it others). */
  scaleOf(bone: string): TieScale;
  /** Back to the clip's start (the rig posed there). */
  restart(): void;
  /** Play or pause the simulation (play after the clip's end starts it over). */
  play(on: boolean): void;
  /** The clip's pose at the current clip time, on the rig's bones (null when off). */
  ghostFrame(): ClipFrame | null;
  read(): MotionRead;
  /** Forget the clip and attachment when the rig was replaced (another scene loaded). */
  sync(): void;
}

export function createMotion(host: MotionHost): Motion {
  const { world } = host;
  let options: MotionOptions = { ...DEFAULT_MOTION_OPTIONS };
  let clip: { key: string; motion: SourceMotion } | null = null;
  let bound: { rig: number; track: PoseTrack; notes: string[] } | null = null;
  let handle: CaptureHandle | null = null;
  /** What Motion changed on the rig, to put back. */
  let saved: { rig: number; settings: Settings; active: Map<number, number> } | null = null;
  let ended = false;
  const frame: ClipFrame = { count: 0, head: new Float64Array(0), rot: new Float64Array(0), length: new Float64Array(0), jointRadius: new Float64Array(0) };
  const point = new Float64Array(3);

  const fileKey = () => (host.file ? `${host.file.fileName}\u0000${host.file.name}` : '');

  async function load(): Promise<SourceMotion> {
    const file = host.file;
    if (!file) throw new Error('no character with motion: open or drop a .bvh, .glb or .gltf file that carries an animation');
    const key = fileKey();
    if (clip?.key === key) return clip.motion;
    const motion = await readClip(file);
    clip = { key, motion };
    bound = null;
    return motion;
  }

  /** The clip time at the rig's current step. */
  const clipTime = (rec: { start: number }, rig: number) => rec.start + world.physik.Rig.step[rig]! * findRig(world, rig).settings.dt;

  /** Pause at the clip's end (a user system after each step). */
  const atEnd = (w: PhysikWorld) => {
    if (!handle) return;
    const rec = poseDriveOf(w, handle.rig);
    if (rec && clipTime(rec, handle.rig) >= handle.duration - 1e-9 && !ended) {
      ended = true;
      host.setPaused(true);
    }
  };

  function markersNow(record: RigRecord, o: MotionOptions): CaptureMarkerDescription[] {
    if (o.preset === 'custom') return markersForTies(o.ties, record.boneNames, o.tieScales);
    const mapping = applyHumanoidTemplate(host.rigDescription()).mapping;
    return markersForPreset(o.preset, record.boneNames, mapping);
  }
  const sameTies = (a: MotionOptions, b: MotionOptions) => {
    const ka = Object.keys(a.ties), sa = Object.keys(a.tieScales);
    return ka.length === Object.keys(b.ties).length && ka.every((k) => a.ties[k] === b.ties[k])
      && sa.length === Object.keys(b.tieScales).length
      && sa.every((k) => a.tieScales[k]!.stiffness === b.tieScales[k]?.stiffness && a.tieScales[k]!.damping === b.tieScales[k]?.damping);
  };
  /** The ties in effect, bone by bone (a preset's set as ties). */
  const tiesNow = (record: RigRecord) => (options.preset === 'custom' ? { ...options.ties } : tiesOfMarkers(markersNow(record, options)));

  /** Tie the rig to the clip at clip time `at` (everything checked first: a throw leaves the world as it was). */
  function attach(next: MotionOptions, at: number): void {
    const rig = host.rig;
    const record = findRig(world, rig);
    const motion = clip!.motion;
    const markers = markersNow(record, next);
    if (!bound || bound.rig !== rig) {
      const b = bindClip(world, rig, motion);
      bound = { rig, track: b.track, notes: b.notes };
    }
    // the rig's own state, to put back when Motion is off
    if (!saved || saved.rig !== rig) {
      const active = new Map<number, number>();
      for (const cp of record.controlPoints) active.set(cp, world.physik.ControlPoint.active[cp]!);
      saved = { rig, settings: getSettings(world, rig), active };
    }
    setSettings(world, rig, captureSettings(motion.fps));
    for (const cp of record.controlPoints) if (world.physik.ControlPoint.active[cp]) setControlPointActive(world, cp, false);
    try {
      handle = attachClip(world, rig, bound.track, {
        markers,
        stiffness: DEFAULT_CAPTURE_STIFFNESS * next.stiffness,
        dampingRatio: next.damping,
        start: at,
      });
    } catch (e) {
      putBack();
      throw e;
    }
    options = next;
    ended = false;
    addSystem(world, 'afterStep', atEnd);
  }

  /** Settings and the points' on/off as they were before Motion. */
  function putBack(): void {
    if (!saved) return;
    const s = saved;
    saved = null;
    try {
      findRig(world, s.rig);
    } catch {
      return; // the rig is gone (another scene)
    }
    setSettings(world, s.rig, s.settings);
    for (const [cp, on] of s.active) if (findRig(world, s.rig).controlPoints.includes(cp)) setControlPointActive(world, cp, on === 1);
  }

  function detach(): void {
    removeSystem(world, 'afterStep', atEnd);
    if (handle) {
      try { detachClip(world, handle.rig); } catch { /* the rig is gone */ }
    }
    handle = null;
  }

  function sync(): void {
    if (clip && clip.key !== fileKey()) { clip = null; bound = null; }
    if (handle && handle.rig !== host.rig) { detach(); saved = null; bound = null; ended = false; }
    if (bound && bound.rig !== host.rig) bound = null;
  }

  function current(): number {
    if (!handle) return 0;
    const rec = poseDriveOf(world, handle.rig);
    return rec ? clipTime(rec, handle.rig) : 0;
  }

  function restart(): void {
    sync();
    if (!handle) return;
    const keep = options;
    detach();
    putBack();
    host.reset(); // the rig as it started (its script from the start too), then posed at the clip's start
    attach(keep, 0);
  }

  const motion: Motion = {
    get on() { return handle !== null; },
    get options() { return options; },
    load,
    async start(o = {}) {
      sync();
      const next = checkMotionOptions(o, options);
      await load();
      if (handle) { detach(); putBack(); }
      attach(next, 0);
    },
    stop() {
      detach();
      putBack();
      ended = false;
    },
    async set(o) {
      sync();
      let next = checkMotionOptions(o, options);
      // "chosen per bone" picked without ties: it starts from the set in effect
      if (next.preset === 'custom' && o.ties === undefined && options.preset !== 'custom') {
        next = { ...next, ties: tiesNow(findRig(world, host.rig)), tieScales: {} };
      }
      if (!handle) { options = next; return; }
      if (next.preset !== options.preset || (next.preset === 'custom' && !sameTies(next, options))) {
        // another set of markers: tied again at the clip time shown (the rig posed there);
        // the markers placed first, so a preset this rig cannot take leaves the clip as it plays
        markersNow(findRig(world, handle.rig), next);
        const at = current();
        const was = options;
        detach();
        try {
          attach(next, at);
        } catch (e) {
          attach(was, at);
          throw e;
        }
        return;
      }
      const rec = handle.record, record = findRig(world, handle.rig);
      rec.stiffness = DEFAULT_CAPTURE_STIFFNESS * next.stiffness;
      rec.dampingRatio = next.damping;
      for (let m = 0; m < rec.markerCp.length; m++) world.physik.ControlPoint.stiffness[rec.markerCp[m]!] = rec.stiffness * rec.mass * rec.markerStiffnessScale[m]!;
      if (rec.markerCp.length) applyDerivedSettings(world, record);
      options = next;
    },
    async tie(bone, tie) {
      sync();
      if (tie !== 'free' && !(tie in BONE_TIES)) throw new Error(`tie of "${bone}": expected "free", "marker", "drive" or "follow", got ${JSON.stringify(tie)}`);
      const record = findRig(world, host.rig);
      if (!record.boneNames.includes(bone)) throw new Error(`tie of "${bone}": this rig has no bone of that name`);
      // the set in effect, bone by bone, then this bone's tie (a freed bone loses its multipliers)
      const ties = tiesNow(record), tieScales = options.preset === 'custom' ? { ...options.tieScales } : {};
      if (tie === 'free') { delete ties[bone]; delete tieScales[bone]; } else ties[bone] = tie;
      await motion.set({ preset: 'custom', ties, tieScales });
    },
    async scaleTie(bone, scale) {
      sync();
      const record = findRig(world, host.rig);
      if (!record.boneNames.includes(bone)) throw new Error(`tie of "${bone}": this rig has no bone of that name`);
      const ties = tiesNow(record);
      if (!ties[bone]) throw new Error(`"${bone}" is free: tie it to the clip first (a world marker, a pose drive or follows exactly)`);
      const was = motion.scaleOf(bone);
      const tieScales = { ...(options.preset === 'custom' ? options.tieScales : {}), [bone]: { stiffness: scale.stiffness ?? was.stiffness, damping: scale.damping ?? was.damping } };
      await motion.set({ preset: 'custom', ties, tieScales });
    },
    scaleOf(bone) {
      const sc = options.preset === 'custom' ? options.tieScales[bone] : undefined;
      return sc ? { ...sc } : { stiffness: 1, damping: 1 };
    },
    tieOf(bone) {
      if (!handle || handle.rig !== host.rig) return options.preset === 'custom' ? options.ties[bone] ?? 'free' : 'free';
      const record = findRig(world, handle.rig), rec = handle.record;
      const i = record.boneNames.indexOf(bone);
      if (i < 0) return 'free';
      for (let m = 0; m < rec.markerBone.length; m++) if (rec.markerBone[m] === i && rec.markerMode[m] !== POSE_FREE) return 'marker';
      return rec.mode[i] === POSE_DRIVE ? 'drive' : rec.mode[i] === POSE_FOLLOW ? 'follow' : 'free';
    },
    restart,
    play(on) {
      sync();
      if (on && handle && (ended || current() >= handle.duration - 1e-9)) restart();
      host.setPaused(!on);
    },
    ghostFrame() {
      // (every drawn frame: no sync, which builds a string; a replaced rig draws nothing)
      if (!handle || handle.rig !== host.rig) return null;
      const rec = poseDriveOf(world, handle.rig);
      if (!rec) return null;
      const record = findRig(world, handle.rig);
      const n = record.bones.length;
      if (frame.length.length < n) {
        frame.head = new Float64Array(n * 3); frame.rot = new Float64Array(n * 4);
        frame.length = new Float64Array(n); frame.jointRadius = new Float64Array(n);
      }
      sampleTrackPose(world, record, rec, clipTime(rec, handle.rig), frame.rot, frame.head);
      const { Bone, Rig } = world.physik;
      const jr = Math.max(0.006, Rig.height[handle.rig]! * 0.008);
      for (let i = 0; i < n; i++) { frame.length[i] = Bone.length[record.bones[i]!]!; frame.jointRadius[i] = jr; }
      frame.count = n;
      return frame;
    },
    read() {
      sync();
      const c = clip?.motion;
      const out: MotionRead = {
        on: handle !== null,
        clip: c ? { name: c.name, fps: c.fps, frames: c.frameCount, duration: (c.frameCount - 1) / c.fps } : null,
        preset: options.preset, stiffness: options.stiffness, damping: options.damping,
        time: current(), ended,
        ghostDistance: 0, ghostBone: '', markerStray: 0, markerStrayMax: 0, markers: [], freeMax: 0, steps: 0,
        notes: [...(c?.notes ?? []), ...(bound?.notes ?? []), ...(handle?.notes ?? [])],
      };
      const f = motion.ghostFrame();
      if (!handle || !f) return out;
      const { Bone, Rig } = world.physik;
      const record = findRig(world, handle.rig);
      const height = Rig.height[handle.rig]! > 0 ? Rig.height[handle.rig]! : 1;
      // the ghost's bones against the rig's: heads and tails
      for (let i = 0; i < f.count; i++) {
        const b = record.bones[i]!, L = f.length[i]!;
        const x = f.rot[i * 4]!, y = f.rot[i * 4 + 1]!, z = f.rot[i * 4 + 2]!, w = f.rot[i * 4 + 3]!;
        const hx = f.head[i * 3]!, hy = f.head[i * 3 + 1]!, hz = f.head[i * 3 + 2]!;
        const tx = hx + 2 * (x * y - z * w) * L, ty = hy + (1 - 2 * (x * x + z * z)) * L, tz = hz + 2 * (y * z + x * w) * L;
        const dh = Math.hypot(Bone.head[b * 3]! - hx, Bone.head[b * 3 + 1]! - hy, Bone.head[b * 3 + 2]! - hz);
        const dt = Math.hypot(Bone.tail[b * 3]! - tx, Bone.tail[b * 3 + 1]! - ty, Bone.tail[b * 3 + 2]! - tz);
        const d = Math.max(dh, dt) / height;
        if (!(d <= out.ghostDistance)) { out.ghostDistance = d; out.ghostBone = record.boneNames[i]!; }
      }
      // the world markers: their points against the clip's
      const rec = handle.record, st = handle.stats;
      for (let m = 0; m < rec.markerCp.length; m++) {
        const cp = rec.markerCp[m]!, i = rec.markerBone[m]!;
        attachmentPoint(world, cp, point, 0);
        // a marker sits at its bone's head (at 0): the ghost's head of that bone
        const d = Math.hypot(point[0]! - f.head[i * 3]!, point[1]! - f.head[i * 3 + 1]!, point[2]! - f.head[i * 3 + 2]!) / height;
        const s = st.markers[m]!;
        out.markers.push({ marker: s.marker, bone: s.bone, now: d, max: s.max });
        out.markerStray = Math.max(out.markerStray, d);
        out.markerStrayMax = Math.max(out.markerStrayMax, s.max);
      }
      out.freeMax = st.free.max;
      out.steps = st.steps;
      return out;
    },
    sync,
  };
  return motion;
}
