/**
 * PoseDrive: what ties a rig to an animation clip (physics on top of motion). Data only; the
 * systems in systems/poseDrives.ts read and write it.
 *
 * A rig driven by a clip has one record: the clip sampled onto the rig's own bones (a
 * `PoseTrack`: every bone's rotation relative to its parent bone and the root's head, per
 * frame), how each bone is tied to it (a mode per bone: free, drive or follow, with stiffness
 * and damping multipliers), its world markers (control points whose targets follow marked
 * points of the clip), and the per-step targets the systems share. Arrays are indexed by the
 * bone's depth-first index in the rig (RigRecord.bones), markers by their index in `markerCp`.
 */

/** Not tied to the clip: physics only. */
export const POSE_FREE = 0;
/** Pulled toward the clip by springs (a pose-space drive, or a world marker's control spring). */
export const POSE_DRIVE = 1;
/** Kinematic: set to the clip's pose every step. */
export const POSE_FOLLOW = 2;
export type PoseMode = typeof POSE_FREE | typeof POSE_DRIVE | typeof POSE_FOLLOW;

/**
 * A clip on a rig: per frame, each bone's rotation relative to its parent bone (x, y, z, w;
 * the root's in the world) and the root's head in the world. Frames are 1/fps apart from time 0.
 */
export interface PoseTrack {
  fps: number;
  frameCount: number;
  /** Bones per frame (the rig's bone count, depth-first order). */
  bones: number;
  /** frameCount × bones × 4. */
  local: Float64Array;
  /** frameCount × 3. */
  rootHead: Float64Array;
}

export interface PoseDriveRecord {
  track: PoseTrack;
  /** Per bone: its parent's index (-1 for the root). */
  parent: Int32Array;
  /** Clip time (s) at the rig's step 0. */
  start: number;
  /** Rig-wide stiffness S (1/s²): a drive's stiffness is S × the joint's inertia, a marker's S × the rig's mass. */
  stiffness: number;
  /** Rig-wide damping ratio ζ of drives and markers (1 = critical). */
  dampingRatio: number;
  /**
   * Damping rate (1/s) of the free joints' relative rotation, × the inertia the joint turns:
   * joint friction, so a light finger on a hand the clip yanks does not spin up without bound.
   */
  jointDamping: number;
  /** Per bone: POSE_FREE, POSE_DRIVE or POSE_FOLLOW of its pose-space drive. */
  mode: Uint8Array;
  /**
   * Per bone: the inertia its drive turns, of the bone and everything it carries about its head
   * at rest (the root's: the whole rig about its head). A drive's stiffness is S × this.
   */
  inertia: Float64Array;
  /** Per bone: multipliers of the rig-wide stiffness and damping. */
  stiffnessScale: Float64Array;
  dampingScale: Float64Array;
  /** Per world marker: its control point entity, bone index, mode and multipliers. */
  markerCp: Int32Array;
  markerBone: Int32Array;
  markerMode: Uint8Array;
  markerStiffnessScale: Float64Array;
  markerDampingScale: Float64Array;
  /** Bones set kinematically this step (a followed bone, or an ancestor of a followed world marker). */
  follow: Uint8Array;
  /** Bones whose clip angular velocity and acceleration are read (followed, driven, the parent of a driven bone, or a driven world marker's): the others' are not computed. */
  rates: Uint8Array;
  /** Mode changes by step: sorted by step; `cursor` is the next one due. */
  events: { step: number; bones: number[]; markers: number[]; mode: PoseMode }[];
  cursor: number;
  /** The clip sampled at the step's start (A), end (B) and a step later (C): world rotations, heads. */
  rotA: Float64Array;
  rotB: Float64Array;
  rotC: Float64Array;
  headA: Float64Array;
  headB: Float64Array;
  headC: Float64Array;
  /** World angular velocity of every bone in the clip over the step (A → B) and the next (B → C), and the root head's velocity. */
  omega: Float64Array;
  omegaNext: Float64Array;
  /** The step and dt the samples were taken for (-1: none yet): the next step reuses B and C. */
  sampledStep: number;
  sampledDt: number;
  rootVel: Float64Array;
  /** The clip's angular acceleration of every bone (world) and the root head's acceleration, from this step to the next. */
  alpha: Float64Array;
  rootAcc: Float64Array;
  /** Each marker's clip point at the step's end, its velocity over the step and its acceleration. */
  pointB: Float64Array;
  pointVel: Float64Array;
  pointAcc: Float64Array;
  /** The acceleration of each marker's bone's centre in the clip. */
  centreAcc: Float64Array;
  /** The rig's mass (the scale of the world markers and of the root's drive at its head). */
  mass: number;
  /** Set when modes changed: `follow` is recomputed before the next step. */
  followDirty: boolean;
  /** Scratch: one bone's interpolated local rotation. */
  q: Float64Array;
}

/** A record for a rig of n bones with m world markers, every bone free. */
export function createPoseDriveRecord(track: PoseTrack, n: number, m: number): PoseDriveRecord {
  return {
    track,
    parent: new Int32Array(n).fill(-1),
    start: 0,
    stiffness: 10000,
    dampingRatio: 1,
    jointDamping: 30,
    mode: new Uint8Array(n),
    inertia: new Float64Array(n),
    stiffnessScale: new Float64Array(n).fill(1),
    dampingScale: new Float64Array(n).fill(1),
    markerCp: new Int32Array(m),
    markerBone: new Int32Array(m),
    markerMode: new Uint8Array(m),
    markerStiffnessScale: new Float64Array(m).fill(1),
    markerDampingScale: new Float64Array(m).fill(1),
    follow: new Uint8Array(n),
    rates: new Uint8Array(n),
    events: [],
    cursor: 0,
    rotA: new Float64Array(n * 4),
    rotB: new Float64Array(n * 4),
    rotC: new Float64Array(n * 4),
    headA: new Float64Array(n * 3),
    headB: new Float64Array(n * 3),
    headC: new Float64Array(n * 3),
    omega: new Float64Array(n * 3),
    omegaNext: new Float64Array(n * 3),
    sampledStep: -1,
    sampledDt: 0,
    rootVel: new Float64Array(3),
    alpha: new Float64Array(n * 3),
    rootAcc: new Float64Array(3),
    pointB: new Float64Array(m * 3),
    pointVel: new Float64Array(m * 3),
    pointAcc: new Float64Array(m * 3),
    centreAcc: new Float64Array(m * 3),
    mass: 1,
    followDirty: true,
    q: new Float64Array(4),
  };
}
