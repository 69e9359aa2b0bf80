/**
 * Scene description types: the plain-data form of a scene file (after validation and
 * defaulting): the rig, control points, settings and script the plugin takes
 * (src/world/types.ts, re-exported here), and what a scene adds: its crowd and its expect block.
 */
import type { ControlPointDescription, RigDescription, ScriptEvent, Settings } from '../world/types';

export type * from '../world/types';

/**
 * A crowd (scene field `crowd`): `count` copies of the scene's rig on a grid behind it, each
 * following a seeded wandering target of its own (src/scene/crowd.ts). The sandbox spawns it
 * with the scene; a headless run steps it beside the scene's rig and reports it (RunSummary.crowd).
 */
export interface CrowdDescription {
  count: number;
  /** Distance between neighbours (default 1.2 × the rig's height). */
  spacing?: number;
  /** Steps between wander moves (default 100). */
  every?: number;
  /** Wander radius as a fraction of the distance from the root to the first target (default 0.5). */
  radius?: number;
  /** The control point that wanders (default: the one the script moves first, else the first goal). */
  point?: string;
  /** Seed of the wander targets (default 1). */
  seed?: number;
}

export interface ExpectRange { min?: number; max?: number }

export interface ExpectCompare {
  name: string;
  metric: string;
  /** Settings and/or control point overrides of the variant run. */
  variant: { settings?: Partial<Settings> };
  /** The base run's metric must be 'less' or 'greater' than the variant's. */
  relation: 'less' | 'greater';
}

export interface ExpectBlock {
  finite?: boolean;
  converged?: boolean;
  /**
   * A summary metric's name → range (the names check.ts's SUMMARY_METRICS lists, and
   * `targetErrors.<point>`, `pose.<bone>.head.<i>`, `crowd.<...>`). Parsed into an object
   * without a prototype, like `targets`, so a name such as `__proto__` stays a key.
   */
  metrics?: Record<string, ExpectRange>;
  /** Per goal control point: final distance from attachment to target. */
  targets?: Record<string, ExpectRange>;
  compare?: ExpectCompare[];
}

export interface Scene {
  name: string;
  description?: string;
  rig: RigDescription;
  controlPoints: ControlPointDescription[];
  settings: Settings;
  steps: number;
  script: ScriptEvent[];
  /** Bones whose path length is summed into the 'secondaryMotion' metric. */
  secondaryBones?: string[];
  crowd?: CrowdDescription;
  expect?: ExpectBlock;
}
