/**
 * The sandbox's joint editing (DOM-free; the panel's joint folder is jointPanel.ts): a joint's
 * limits per axis, and the humanoid template's mapping (which bone took which role) with a
 * joint's role changed or cleared, its limits then the template's for the new role
 * (src/io/humanoid.ts `roleLimits`, in the bone's frame as built) or, with no role, the
 * anti-folding defaults.
 *
 * Each change is one undoable step of the sandbox's history (undo by state, edits.ts: the
 * limits are in the rig's snapshot; the mapping is kept beside it). Everything goes through
 * the plugin's API (`setJointLimits`), which checks the values before anything changes: a
 * refused value throws with its reason and the world is as it was. The limits are saved with
 * the scene (sceneFile.ts writes them as they stand), and so kept with a character's file
 * across reloads.
 *
 * The mapping is found again from the rig's description whenever another rig is loaded
 * (`applyHumanoidTemplate`: by names, else by the skeleton's shape), or taken from before
 * (`adoptMapping`: a character's, kept with its file); every change is told
 * (`mappingChanged`) so a character can keep it. The scene file has the limits, not the roles.
 */
import { getJointLimits, setJointLimits, type JointLimits, type PhysikWorld } from '../core';
import { findRig } from '../world/world';
import type { AxisLimit, RigDescription } from '../world/types';
import { applyHumanoidTemplate, roleLimits, roleOf, withRole, type HumanoidMapping, type HumanoidTemplateResult, type TemplateRole } from '../io/humanoid';
import type { History } from './history';
import { createUndoable } from './edits';

export type { JointLimits } from '../core';

/** What the joint editing needs of the sandbox. */
export interface JointHost {
  readonly world: PhysikWorld;
  /** The main rig (read each time: a loaded scene replaces it). */
  readonly rig: number;
  readonly history: History;
  /** The rig's description as it stands (the scene file's `rig`). */
  rigDescription(): RigDescription;
  /** The mapping changed (a role set, undone or redone): a character keeps it with its file. */
  mappingChanged?(mapping: HumanoidMapping): void;
  /** These joints' limits changed (set, or put back by an undo or redo): the compare ghost follows. */
  limitsChanged?(bones: readonly string[]): void;
}

export interface JointEditing {
  /** The humanoid mapping of the rig shown, and how it was found ('none': not a humanoid). */
  readonly mapping: HumanoidMapping;
  readonly method: HumanoidTemplateResult['method'];
  /** Bone names of the rig shown, root first. */
  bones(): readonly string[];
  /** Whether a bone has a joint (the root has none). */
  hasJoint(bone: string): boolean;
  limits(bone: string): JointLimits;
  /** Change some axes of a joint's limits (one undoable step); throws, nothing changed, when refused. */
  setLimits(bone: string, patch: Partial<JointLimits>): void;
  /** The bone's role in the mapping, or null. */
  roleOf(bone: string): TemplateRole | null;
  /** Give a bone a role (null: none) and the template's limits for it (one undoable step); throws, nothing changed, when refused. */
  setRole(bone: string, role: TemplateRole | null): void;
  /**
   * Take a mapping kept from before (a character's, as last edited) as the rig's, without
   * touching its limits (they were kept with the scene); roles of bones the rig lacks are left
   * out. Not an undo step.
   */
  adoptMapping(kept: HumanoidMapping): void;
}

/** A new limit on a free axis starts at this (degrees each way). */
export const NEW_AXIS_LIMIT = 45;

const fmt = (l: AxisLimit) => (l === 'free' ? 'free' : `${l[0]}…${l[1]}`);
/** A joint's limits in words: "x −20…120, y ±40 …". */
export const limitsText = (l: JointLimits) => (['x', 'y', 'z'] as const).map((a) => `${a} ${fmt(l[a])}`).join(', ');

export function createJointEditing(host: JointHost): JointEditing {
  const { world } = host;
  let forRig = -1;
  let mapping: HumanoidMapping = { spine: [], neck: [] };
  let method: HumanoidTemplateResult['method'] = 'none';
  /** The mapping of the rig shown (found again when another rig is loaded). */
  const current = () => {
    if (forRig !== host.rig) {
      const t = applyHumanoidTemplate(host.rigDescription(), { defaults: false });
      mapping = t.mapping;
      method = t.method;
      forRig = host.rig;
    }
    return mapping;
  };
  const ref = { world, get rig() { return host.rig; } };
  /** Each step keeps the mapping and the bone it changed; putting one back re-applies that joint's limits through the API. */
  const undoable = createUndoable(ref, host.history, {
    extra: () => ({ mapping: current(), rig: host.rig }),
    restoreExtra(extra) {
      if (extra.rig !== host.rig) return;
      mapping = extra.mapping;
      host.mappingChanged?.(mapping);
      // the limits came back with the rig's snapshot: set them again through the API, so what
      // it derives from them follows
      const r = record();
      const joints = r.boneNames.filter((_, i) => world.physik.Bone.parent[r.bones[i]!]! >= 0);
      for (const name of joints) setJointLimits(world, host.rig, name, getJointLimits(world, host.rig, name));
      host.limitsChanged?.(joints);
    },
  });
  function record() { return findRig(world, host.rig); }
  function hasJoint(bone: string): boolean {
    const b = record().boneByName.get(bone);
    return b !== undefined && world.physik.Bone.parent[b]! >= 0;
  }

  return {
    get mapping() { return current(); },
    get method() { current(); return method; },
    bones: () => record().boneNames,
    hasJoint,
    limits: (bone) => getJointLimits(world, host.rig, bone),
    setLimits(bone, patch) {
      const axes = Object.entries(patch).map(([a, l]) => `${a} ${fmt(l)}`).join(', ');
      undoable.run(`limits of ${bone}: ${axes}`, () => setJointLimits(world, host.rig, bone, patch));
      host.limitsChanged?.([bone]);
    },
    roleOf: (bone) => roleOf(current(), bone),
    setRole(bone, role) {
      const next = withRole(current(), bone, role);
      const limits = roleLimits(host.rigDescription(), current(), bone, role); // throws for an unknown bone
      const joint = hasJoint(bone); // the root has no joint: only its role changes
      undoable.run(`${bone} as ${role ?? 'no role'}`, () => {
        if (joint) setJointLimits(world, host.rig, bone, limits); // throws before anything changes
        mapping = next;
      });
      host.mappingChanged?.(mapping);
      host.limitsChanged?.([bone]);
    },
    adoptMapping(kept) {
      current();
      const known = record().boneByName;
      const roles = Object.fromEntries(Object.entries(kept).filter(([role, v]) =>
        role !== 'spine' && role !== 'neck' && typeof v === 'string' && known.has(v)));
      const list = (v: unknown) => (Array.isArray(v) ? v.filter((b): b is string => typeof b === 'string' && known.has(b)) : []);
      mapping = { ...roles, spine: list(kept.spine), neck: list(kept.neck) };
    },
  };
}
