/**
 * Deep links: the page's address says what it shows, `?scene=humanoid&solver=ccd&compare=fabrik&onion=4&rapier=impulse`
 * (`rapier=1` is impulse joints, `rapier=multibody` the other model, `rapier=0` off), and
 * `crowd=100` (copies of the rig, 0-1000), `worker=1` (the simulation in a Web Worker, workerMode.ts), and
 * `responsiveness=2&liveliness=0.3` (the feel knobs, feel.ts; written when they differ from the sandbox's).
 * `readDeepLink` parses a query (unknown values are reported, never applied); `writeDeepLink`
 * puts the sandbox's current choices back in the address bar without reloading.
 */
import { getSettings } from '../core';
import { settingEnums } from '../core/settings';
import type { Sandbox } from './sandbox';
import type { JointModel } from '../rapier/jointPlan';
import { CROWD_MAX } from './simScene';
import { feelProblem, SANDBOX_FEEL } from './feel';

import { rapierJointModels } from './rapierChoices';
export { rapierJointModels, rapierPlacements, type RapierPlacement } from './rapierChoices';

/** Every solver name the settings accept (PhysIK first). */
export const solverNames: readonly string[] = settingEnums.solver!;

export interface SandboxOptions {
  /** Solver of the main rig (default: the scene's). */
  solver?: string;
  /** Second solver drawn as a ghost (default: none). */
  compare?: string;
  /** Onion-skin ghosts shown (0-8, default 0). */
  onion?: number;
  /** The Rapier ghost on, with this joint model (default: off). */
  rapier?: JointModel;
  /** Copies of the rig spawned as a crowd (0-1000, default 0). */
  crowd?: number;
  /** Run the simulation in a Web Worker (worker mode; default: on the main thread). */
  worker?: boolean;
  /** The feel knobs (feel.ts; default: the sandbox's, except on a scene with a feel of its own). */
  responsiveness?: number;
  liveliness?: number;
}

/** Keep the address bar a deep link to what is shown. */
export function writeDeepLink(s: Sandbox): void {
  const url = new URL(location.href);
  url.searchParams.set('scene', s.sceneName);
  url.searchParams.set('solver', getSettings(s.world, s.rig).solver);
  if (s.compare) url.searchParams.set('compare', s.compare.solver);
  else url.searchParams.delete('compare');
  if (s.onion > 0) url.searchParams.set('onion', String(s.onion));
  else url.searchParams.delete('onion');
  if (s.rapierJoints) url.searchParams.set('rapier', s.rapierJoints);
  else url.searchParams.delete('rapier');
  if (s.crowd > 0) url.searchParams.set('crowd', String(s.crowd));
  else url.searchParams.delete('crowd');
  // a knob in effect is written when it is not the sandbox's default, or when the scene would
  // otherwise keep its own (then the default too was a choice)
  for (const key of ['responsiveness', 'liveliness'] as const) {
    const v = s.feel[key];
    if (v !== null && (v !== SANDBOX_FEEL[key] || s.sceneOwnFeel)) url.searchParams.set(key, String(v));
    else url.searchParams.delete(key);
  }
  // `worker` is left as the page was opened: switching it reloads the page (the panel's toggle)
  history.replaceState(null, '', url);
}

/** The page's query: scene, solver, compare, onion, rapier, crowd, worker, responsiveness, liveliness. Unknown values are reported, not applied. */
export function readDeepLink(search: string): { scene: string; options: SandboxOptions; problems: string[] } {
  const q = new URLSearchParams(search);
  const problems: string[] = [];
  const options: SandboxOptions = {};
  const solver = q.get('solver');
  if (solver) {
    if (solverNames.includes(solver)) options.solver = solver;
    else problems.push(`?solver=${solver}: unknown solver (have: ${solverNames.join(', ')})`);
  }
  const cmp = q.get('compare');
  if (cmp && cmp !== 'none') {
    if (solverNames.includes(cmp)) options.compare = cmp;
    else problems.push(`?compare=${cmp}: unknown solver (have: ${solverNames.join(', ')})`);
  }
  const onion = q.get('onion');
  if (onion !== null) {
    const n = Number(onion);
    if (Number.isInteger(n) && n >= 0 && n <= 8) options.onion = n;
    else problems.push(`?onion=${onion}: expected a whole number from 0 to 8`);
  }
  const rapier = q.get('rapier');
  if (rapier !== null) {
    const v = rapier.toLowerCase();
    if (v === '1' || v === 'true' || v === 'on') options.rapier = 'impulse';
    else if ((rapierJointModels as readonly string[]).includes(v)) options.rapier = v as JointModel;
    else if (!(v === '0' || v === 'false' || v === 'off' || v === 'none')) {
      problems.push(`?rapier=${rapier}: expected 1, 0, ${rapierJointModels.join(' or ')}`);
    }
  }
  const crowd = q.get('crowd');
  if (crowd !== null) {
    const n = Number(crowd);
    if (Number.isInteger(n) && n >= 0 && n <= CROWD_MAX) options.crowd = n;
    else problems.push(`?crowd=${crowd}: expected a whole number from 0 to ${CROWD_MAX}`);
  }
  const worker = q.get('worker');
  if (worker !== null) {
    const v = worker.toLowerCase();
    if (v === '1' || v === 'true' || v === 'on') options.worker = true;
    else if (!(v === '0' || v === 'false' || v === 'off' || v === '')) problems.push(`?worker=${worker}: expected 1 or 0`);
  }
  for (const key of ['responsiveness', 'liveliness'] as const) {
    const raw = q.get(key);
    if (raw === null) continue;
    const n = raw.trim() === '' ? NaN : Number(raw);
    const problem = feelProblem(key, n);
    if (problem) problems.push(`?${key}=${raw}: ${problem.replace(/, got .*$/, '')}`);
    else options[key] = n;
  }
  return { scene: q.get('scene') || 'humanoid', options, problems };
}

