/**
 * Cross-reference checks the schema cannot express: bone and control point names, the
 * single root, parent cycles. They read the raw (unvalidated) data defensively so they
 * can run alongside the schema and every problem is reported in one go; entries the
 * schema already rejects (e.g. a parent that is not a string) are skipped here.
 */

export interface SceneIssue {
  path: string;
  message: string;
}

/**
 * Practical limits: values the schema's types allow but that would hang or overflow a run.
 * - MAX_BONES: bones in one rig (the benchmarks build 10,000-bone chains and trees; building a
 *   rig is quadratic in its bones, so 100,000 would take many minutes).
 * - MAX_STEPS: a scene's `steps` (the CLI's `--steps` cap).
 * - MAX_MAGNITUDE: any number of a scene, a settings patch, a control point or a target. A
 *   finite 1e308 passes "finite" but its square (a bone's inertia, a spring's energy) is
 *   Infinity, and NaN follows within a step; up to 1e9 every product the step forms stays finite.
 * - MAX_PASSES: `settings.maxPasses`. A cap of 1e9 passes with an epsilon the solve cannot
 *   reach runs for hours per step.
 */
export const MAX_BONES = 10_000;
export const MAX_STEPS = 10_000_000;
export const MAX_MAGNITUDE = 1e9;
export const MAX_PASSES = 1_000_000;

/** `['rig', 'bones', 3, 'mass']` → `rig.bones[3].mass`; the empty path is `(root)`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(String(seg))) out += (out ? '.' : '') + String(seg);
    else out += `[${JSON.stringify(String(seg))}]`;
  }
  return out || '(root)';
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const field = (v: unknown, key: string): unknown => (isObject(v) ? v[key] : undefined);

/** `(known: a, b, c)`, shortened for big rigs. */
function known(names: Iterable<string>): string {
  const all = [...names];
  const shown = all.length > 12 ? [...all.slice(0, 12), '...'] : all;
  return all.length ? `(known: ${shown.join(', ')})` : '(none defined)';
}

export function checkReferences(data: unknown): SceneIssue[] {
  const issues: SceneIssue[] = [];
  const add = (path: PropertyKey[], message: string) => issues.push({ path: formatPath(path), message });

  // Bones: first index of each name.
  const bones = list(field(field(data, 'rig'), 'bones'));
  const boneIndex = new Map<string, number>();
  bones.forEach((b, i) => {
    const n = field(b, 'name');
    if (typeof n !== 'string') return;
    const first = boneIndex.get(n);
    if (first === undefined) boneIndex.set(n, i);
    else add(['rig', 'bones', i, 'name'], `duplicate bone name "${n}" (first used by rig.bones[${first}])`);
  });

  const parents = bones.map((b) => field(b, 'parent'));
  parents.forEach((p, i) => {
    if (typeof p === 'string' && !boneIndex.has(p)) {
      add(['rig', 'bones', i, 'parent'], `unknown bone "${p}" ${known(boneIndex.keys())}`);
    }
  });

  // Exactly one root; skipped when some parent is malformed (the schema reports those).
  if (bones.length && parents.every((p) => p === null || typeof p === 'string')) {
    const roots = bones.flatMap((b, i) => (parents[i] === null ? [i] : []));
    if (roots.length === 0) {
      add(['rig', 'bones'], 'expected exactly one root bone (parent: null), found none');
    } else if (roots.length > 1) {
      const names = roots.map((i) => `rig.bones[${i}] "${String(field(bones[i], 'name'))}"`);
      add(['rig', 'bones'], `expected exactly one root bone (parent: null), found ${roots.length}: ${names.join(', ')}`);
    }
  }

  // Cycles: walk each parent chain; meeting a bone already on the current walk closes a cycle.
  const state = new Array<0 | 1 | 2>(bones.length).fill(0); // unvisited / on this walk / done
  const parentOf = (i: number) => {
    const p = parents[i];
    return typeof p === 'string' ? boneIndex.get(p) : undefined;
  };
  for (let start = 0; start < bones.length; start++) {
    const walk: number[] = [];
    let cur: number | undefined = start;
    while (cur !== undefined && state[cur] === 0) {
      state[cur] = 1;
      walk.push(cur);
      cur = parentOf(cur);
    }
    if (cur !== undefined && state[cur] === 1) {
      const cycle = walk.slice(walk.indexOf(cur));
      const names = [...cycle, cycle[0]].map((i) => String(field(bones[i], 'name')));
      add(['rig', 'bones', cycle[0], 'parent'], `parent cycle: ${names.join(' -> ')} (these bones never reach the root)`);
    }
    for (const i of walk) state[i] = 2;
  }

  bones.forEach((b, i) => {
    const p = parents[i];
    if (field(b, 'head') !== undefined && typeof p === 'string') {
      add(['rig', 'bones', i, 'head'], `only the root bone may set head, but this bone has parent "${p}"`);
    }
  });

  // Control points.
  const points = list(field(data, 'controlPoints'));
  const pointIndex = new Map<string, number>();
  points.forEach((cp, i) => {
    const n = field(cp, 'name');
    if (typeof n === 'string') {
      const first = pointIndex.get(n);
      if (first === undefined) pointIndex.set(n, i);
      else add(['controlPoints', i, 'name'], `duplicate control point name "${n}" (first used by controlPoints[${first}])`);
    }
    const bone = field(cp, 'bone');
    if (typeof bone === 'string' && !boneIndex.has(bone)) {
      add(['controlPoints', i, 'bone'], `unknown bone "${bone}" ${known(boneIndex.keys())}`);
    }
  });

  list(field(data, 'script')).forEach((e, i) => {
    const p = field(e, 'point');
    if (typeof p === 'string' && !pointIndex.has(p)) {
      add(['script', i, 'point'], `unknown control point "${p}" ${known(pointIndex.keys())}`);
    }
  });

  list(field(data, 'secondaryBones')).forEach((n, i) => {
    if (typeof n === 'string' && !boneIndex.has(n)) {
      add(['secondaryBones', i], `unknown bone "${n}" ${known(boneIndex.keys())}`);
    }
  });

  const crowdPoint = field(field(data, 'crowd'), 'point');
  if (typeof crowdPoint === 'string' && !pointIndex.has(crowdPoint)) {
    add(['crowd', 'point'], `unknown control point "${crowdPoint}" ${known(pointIndex.keys())}`);
  }

  const targets = field(field(data, 'expect'), 'targets');
  if (isObject(targets)) {
    for (const key of Object.keys(targets)) {
      if (!pointIndex.has(key)) add(['expect', 'targets', key], `unknown control point "${key}" ${known(pointIndex.keys())}`);
    }
  }
  return issues;
}

/** Every number under `data` (at `path`) beyond ±MAX_MAGNITUDE; iterative (input may nest deeply). */
export function checkMagnitudes(data: unknown, path: PropertyKey[] = []): SceneIssue[] {
  const issues: SceneIssue[] = [];
  const stack: [unknown, PropertyKey[]][] = [[data, path]];
  while (stack.length && issues.length < 20) {
    const [v, at] = stack.pop()!;
    if (typeof v === 'number') {
      if (Number.isFinite(v) && Math.abs(v) > MAX_MAGNITUDE) {
        issues.push({ path: formatPath(at), message: `expected a number from -1e9 to 1e9 (larger ones overflow the simulation), got ${v}` });
      }
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], [...at, i]]);
    } else if (isObject(v)) {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) stack.push([v[keys[i]!], [...at, keys[i]!]]);
    }
  }
  return issues;
}

/** A settings patch's practical limits (the schema checks the types and ranges). */
export function checkSettingsLimits(settings: unknown, path: PropertyKey[]): SceneIssue[] {
  const issues = checkMagnitudes(settings, path);
  const passes = field(settings, 'maxPasses');
  if (typeof passes === 'number' && passes > MAX_PASSES && passes <= MAX_MAGNITUDE) {
    issues.push({ path: formatPath([...path, 'maxPasses']), message: `expected at most ${MAX_PASSES} passes per step (0 means 5 × joints²), got ${passes}` });
  }
  return issues;
}

/** Rigs too big to build in reasonable time; checked before anything else (a quick refusal). */
export function checkSize(data: unknown): SceneIssue[] {
  const bones = field(field(data, 'rig'), 'bones');
  if (Array.isArray(bones) && bones.length > MAX_BONES) {
    return [{ path: 'rig.bones', message: `expected at most ${MAX_BONES} bones, got ${bones.length}` }];
  }
  return [];
}

/** Practical limits of a whole scene: steps, magnitudes and settings (see MAX_*). */
export function checkLimits(data: unknown): SceneIssue[] {
  const issues: SceneIssue[] = [];
  const steps = field(data, 'steps');
  if (typeof steps === 'number' && steps > MAX_STEPS && steps <= MAX_MAGNITUDE) {
    issues.push({ path: 'steps', message: `expected at most ${MAX_STEPS} steps, got ${steps}` });
  }
  issues.push(...checkMagnitudes(field(data, 'steps'), ['steps']));
  for (const key of ['rig', 'controlPoints', 'script']) issues.push(...checkMagnitudes(field(data, key), [key]));
  issues.push(...checkSettingsLimits(field(data, 'settings'), ['settings']));
  list(field(field(data, 'expect'), 'compare')).forEach((c, i) => {
    issues.push(...checkSettingsLimits(field(field(c, 'variant'), 'settings'), ['expect', 'compare', i, 'variant', 'settings']));
  });
  return issues;
}
