/**
 * A scene's starting pose (field `start`): its type, joined to the scene description
 * (`Scene` in types.ts) here. The schema is src/core/validation/schema.ts's; addRig places a
 * rig in it (src/core/rig.ts) and resetRig returns to it.
 */
import type { Vec3Tuple } from './types';

/** A rotation as a unit quaternion [x, y, z, w]. */
export type QuatTuple = [number, number, number, number];

/**
 * A rig's starting pose (scene field `start`): where it stands when added and when reset,
 * at rest (no velocities). `bones`: world rotations by bone name, each the rotation from the
 * bone's frame (+Y along the bone) to the world, as the world keeps them (`Bone.rot`); a bone
 * not listed keeps its rest rotation relative to its parent. `head`: where the root bone's
 * head stands (floating roots only; default its rest head; a pinned root stays on its pin).
 * Saved by the sandbox with a scene, so the scene opens in the pose it was saved in.
 */
export interface StartPose {
  head?: Vec3Tuple;
  bones: Record<string, QuatTuple>;
}

declare module './types' {
  interface Scene {
    /** The rig's starting pose (default: its rest pose). */
    start?: StartPose;
  }
}
