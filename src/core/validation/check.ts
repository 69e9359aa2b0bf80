/**
 * Cross-reference checks the schema cannot express: bone and control point names, the
 * single root, parent cycles, the metric names of an expect block. They read the raw
 * (unvalidated) data defensively so they can run alongside the schema and every problem is
 * reported in one go; entries the schema already rejects (e.g. a parent that is not a string)
 * are skipped here. Also the practical limits (MAX_*: size, nesting, magnitudes) and what a
 * crowd's copies would be given. Every check is linear in the size of its input.
 */
import type { Scene, Vec3Tuple } from '../../world/types';
import { MAX_BONES, MAX_STEPS, MAX_MAGNITUDE } from '../../world/limits';

export interface SceneIssue {
  path: string;
  message: string;
}

/**
 * More practical limits (MAX_BONES, MAX_STEPS and MAX_MAGNITUDE are in src/world/limits.ts):
 * - MAX_PASSES: `settings.maxPasses`. A cap of 1e9 passes with an epsilon the solve cannot
 *   reach runs for hours per step.
 * - MAX_DEPTH: arrays and objects within each other (a scene needs 6: `rig.bones[i].limits.x`
 *   is an array at level 6, counting the scene as level 1). Deeper input is refused before
 *   anything else reads it: copying a path per level made a 100,000-level chain of arrays
 *   (a 200 KB file) slow to refuse (docs/robustness.md has the figure).
 */
export { MAX_BONES, MAX_STEPS, MAX_MAGNITUDE };
export const MAX_PASSES = 1_000_000;
export const MAX_DEPTH = 32;

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
function known(names: ReadonlyMap<string, unknown>): string {
  const shown: string[] = [];
  for (const n of names.keys()) {
    if (shown.length === 12) { shown.push('...'); break; }
    shown.push(n);
  }
  return shown.length ? `(known: ${shown.join(', ')})` : '(none defined)';
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
      add(['rig', 'bones', i, 'parent'], `unknown bone "${p}" ${known(boneIndex)}`);
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
      const first = cycle[0]!;
      const names = [...cycle, first].map((i) => String(field(bones[i], 'name')));
      add(['rig', 'bones', first, 'parent'], `parent cycle: ${names.join(' -> ')} (these bones never reach the root)`);
    }
    for (const i of walk) state[i] = 2;
  }

  bones.forEach((b, i) => {
    const p = parents[i];
    if (field(b, 'head') !== undefined && typeof p === 'string') {
      add(['rig', 'bones', i, 'head'], `only the root bone may set head, but this bone has parent "${p}"`);
    }
    if (field(b, 'offset') !== undefined && p === null) {
      add(['rig', 'bones', i, 'offset'], 'the root bone has no parent to be offset from (expected head for its position)');
    }
    if (field(b, 'offset') !== undefined && field(b, 'attach') !== undefined) {
      add(['rig', 'bones', i, 'offset'], 'expected either attach or offset, not both (offset says where on the parent the head sits)');
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
      add(['controlPoints', i, 'bone'], `unknown bone "${bone}" ${known(boneIndex)}`);
    }
  });

  list(field(data, 'script')).forEach((e, i) => {
    const p = field(e, 'point');
    if (typeof p === 'string' && !pointIndex.has(p)) {
      add(['script', i, 'point'], `unknown control point "${p}" ${known(pointIndex)}`);
    }
  });

  list(field(data, 'secondaryBones')).forEach((n, i) => {
    if (typeof n === 'string' && !boneIndex.has(n)) {
      add(['secondaryBones', i], `unknown bone "${n}" ${known(boneIndex)}`);
    }
  });

  // a capture's markers name bones; its script names markers
  const capture = field(data, 'capture');
  const markerNames = new Set<string>();
  list(field(capture, 'markers')).forEach((m, i) => {
    const n = field(m, 'name');
    if (typeof n === 'string') {
      if (markerNames.has(n)) add(['capture', 'markers', i, 'name'], `a marker named "${n}" is listed twice`);
      markerNames.add(n);
    }
    list(field(m, 'bones')).forEach((b, k) => {
      if (typeof b === 'string' && !boneIndex.has(b)) add(['capture', 'markers', i, 'bones', k], `unknown bone "${b}" ${known(boneIndex)}`);
    });
  });
  list(field(capture, 'script')).forEach((e, i) => {
    const m = field(e, 'marker');
    if (typeof m === 'string' && !markerNames.has(m)) add(['capture', 'script', i, 'marker'], `unknown marker "${m}" (markers: ${[...markerNames].join(', ') || 'none'})`);
  });

  // a starting pose names bones; a pinned root's head stays on its pin
  const start = field(data, 'start');
  const startBones = field(start, 'bones');
  if (isObject(startBones)) {
    for (const key of Object.keys(startBones)) {
      if (!boneIndex.has(key)) add(['start', 'bones', key], `unknown bone "${key}" ${known(boneIndex)}`);
    }
  }
  if (field(start, 'head') !== undefined && field(field(data, 'rig'), 'root') === 'pinned') {
    add(['start', 'head'], 'a pinned root stays on its pin (the root bone\'s head at rest): leave out start.head, or make the rig\'s root "floating"');
  }

  const crowdPoint = field(field(data, 'crowd'), 'point');
  if (typeof crowdPoint === 'string' && !pointIndex.has(crowdPoint)) {
    add(['crowd', 'point'], `unknown control point "${crowdPoint}" ${known(pointIndex)}`);
  }

  // Expectations: every name must be one the run reports, so `validate` refuses what the run
  // could not check (instead of the run failing after all its steps).
  const poles = new Set<string>();
  points.forEach((cp) => {
    const n = field(cp, 'name');
    if (typeof n === 'string' && field(cp, 'role') === 'pole') poles.add(n);
  });
  const goal = (name: string): string | undefined => {
    if (!pointIndex.has(name)) return `unknown control point "${name}" ${known(pointIndex)}`;
    if (poles.has(name)) return `expected a goal control point, got pole "${name}" (a pole is a direction hint: it has no target error)`;
    return undefined;
  };
  const expectBlock = field(data, 'expect');
  const targets = field(expectBlock, 'targets');
  if (isObject(targets)) {
    for (const key of Object.keys(targets)) {
      const problem = goal(key);
      if (problem) add(['expect', 'targets', key], problem);
    }
  }
  const context: MetricContext = { bones: boneIndex, goal, crowd: isObject(field(data, 'crowd')), capture: isObject(capture) };
  const metrics = field(expectBlock, 'metrics');
  if (isObject(metrics)) {
    for (const key of Object.keys(metrics)) {
      const problem = metricProblem(key, context);
      if (problem) add(['expect', 'metrics', key], problem);
    }
  }
  list(field(expectBlock, 'compare')).forEach((c, i) => {
    const metric = field(c, 'metric');
    const problem = typeof metric === 'string' && metric !== '' ? metricProblem(metric, context) : undefined;
    if (problem) add(['expect', 'compare', i, 'metric'], problem);
  });
  return issues;
}

/**
 * The run summary's figures an `expect` block may name (src/scene/run.ts RunSummary: its
 * numbers and true/false values, nested ones joined by dots). Besides these:
 * `targetErrors.<goal control point>`, `pose.<bone>.head.<0-2>` (tail, local.<0-3> likewise)
 * and, for a scene with a crowd, `crowd.<CROWD_METRICS>`.
 */
export const SUMMARY_METRICS: readonly string[] = [
  'steps', 'converged', 'stepsToConverge', 'loadResidual', 'springLoad', 'loadRatio', 'static',
  'maxEndSpeed', 'maxTargetError', 'meanTargetError', 'maxJointGap', 'maxLimitViolationDeg',
  'kineticEnergy', 'passesPerStep.mean', 'passesPerStep.max', 'msPerStep', 'msPerStepSteady', 'msPerStepMedian',
  'finite', 'divergedSteps', 'peakKineticEnergy', 'peakLimitViolationDeg', 'peakEndSpeed',
  'secondaryMotion', 'rootTravel', 'height', 'iterations.mean', 'iterations.max', 'msPerSolve',
  'maxBendDeg', 'bendVariation', 'restDeviation',
];
export const CROWD_METRICS: readonly string[] = ['rigs', 'finite', 'maxTargetError', 'meanTargetError', 'converged', 'stepsPerSecond'];
/** A capture's figures (src/scene/run.ts CaptureSummary), as `capture.<name>`; all ÷ the rig's height but the limit's degrees. */
export const CAPTURE_METRICS: readonly string[] = ['maxMarkerStray', 'meanMarkerStray', 'freeMax', 'maxPoseError', 'maxLimitViolationDeg'];

const poseMetric = /^pose\.(.+)\.(head|tail|local)\.(\d)$/s;

/**
 * The keys that lead to a metric's value in the run summary: `passesPerStep.mean` is
 * `['passesPerStep', 'mean']`; a control point or bone name keeps its dots
 * (`targetErrors.index.2` is `['targetErrors', 'index.2']`).
 */
export function metricPath(metric: string): string[] {
  if (metric.startsWith('targetErrors.')) return ['targetErrors', metric.slice('targetErrors.'.length)];
  const pose = poseMetric.exec(metric);
  if (pose) return ['pose', pose[1]!, pose[2]!, pose[3]!];
  return metric.split('.');
}

interface MetricContext {
  bones: ReadonlyMap<string, number>;
  /** Why a name is not a goal control point, or undefined when it is one. */
  goal: (name: string) => string | undefined;
  crowd: boolean;
  capture: boolean;
}

const metricList = [
  ...SUMMARY_METRICS, 'targetErrors.<goal control point>', 'pose.<bone>.head.<0-2>', 'pose.<bone>.tail.<0-2>', 'pose.<bone>.local.<0-3>',
  `crowd.<${CROWD_METRICS.join('|')}> (with a crowd block)`, `capture.<${CAPTURE_METRICS.join('|')}> (with a capture block)`,
].join(', ');

/** Why `metric` names no figure of this scene's run, or undefined when it names one. */
function metricProblem(metric: string, context: MetricContext): string | undefined {
  const unknown = `expected a metric of the run's summary (${metricList}), got ${JSON.stringify(metric)}`;
  if (SUMMARY_METRICS.includes(metric)) return undefined;
  const [head, ...rest] = metricPath(metric);
  if (head === 'targetErrors' && rest.length === 1) return context.goal(rest[0]!);
  if (head === 'pose' && rest.length === 3) {
    const [bone, part, index] = rest as [string, string, string];
    if (!context.bones.has(bone)) return `unknown bone "${bone}" ${known(context.bones)}`;
    const n = part === 'local' ? 4 : 3;
    return Number(index) < n ? undefined : `expected pose.<bone>.${part}.<0-${n - 1}>, got ${JSON.stringify(metric)}`;
  }
  if (head === 'crowd' && rest.length === 1 && CROWD_METRICS.includes(rest[0]!)) {
    return context.crowd ? undefined : `expected a crowd block for the crowd metric ${JSON.stringify(metric)}, got none`;
  }
  if (head === 'capture' && rest.length === 1 && CAPTURE_METRICS.includes(rest[0]!)) {
    return context.capture ? undefined : `expected a capture block for the capture metric ${JSON.stringify(metric)}, got none`;
  }
  return unknown;
}

/**
 * Walk every value under `data` (which sits at `base`) without recursion, in time linear in
 * the number of values: a path is a linked list of keys (each step adds one link, never copies
 * the path) turned into text only for a value that is reported. Containers nested deeper than
 * MAX_DEPTH, or containing themselves (a cycle, possible through the API, not in JSON), are
 * reported and not entered; a container met twice (shared, through the API) is walked once.
 * `onNumber` sees every number with a function that formats its path. Stops after `cap` issues.
 */
function walk(
  data: unknown,
  base: readonly PropertyKey[],
  onNumber: ((v: number, at: () => string) => SceneIssue | undefined) | undefined,
  cap = 20,
  level0 = base.length,
): SceneIssue[] {
  const issues: SceneIssue[] = [];
  interface Link { key: PropertyKey; up: Link | undefined }
  const pathOf = (link: Link | undefined) => {
    const keys: PropertyKey[] = [];
    for (let l = link; l; l = l.up) keys.push(l.key);
    return formatPath([...base, ...keys.reverse()]);
  };
  const seen = new Set<object>();
  const open = new Set<object>(); // containers on the current path (for cycles)
  // an entry is a value to visit, or (exit) the container to close after its children
  const stack: { v: unknown; link: Link | undefined; level: number; exit?: boolean }[] = [{ v: data, link: undefined, level: level0 }];
  while (stack.length && issues.length < cap) {
    const { v, link, level, exit } = stack.pop()!;
    if (exit) { open.delete(v as object); continue; }
    if (typeof v === 'number') {
      if (onNumber) {
        const issue = onNumber(v, () => pathOf(link));
        if (issue) issues.push(issue);
      }
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    const what = Array.isArray(v) ? 'an array' : 'an object';
    if (open.has(v)) {
      issues.push({ path: pathOf(link), message: `expected plain data, got ${what} that contains itself` });
      continue;
    }
    if (seen.has(v)) continue;
    if (level + 1 > MAX_DEPTH) {
      issues.push({ path: pathOf(link), message: `expected arrays and objects nested at most ${MAX_DEPTH} levels deep, got ${what} at level ${level + 1}` });
      continue;
    }
    seen.add(v);
    open.add(v);
    stack.push({ v, link, level, exit: true });
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], link: { key: i, up: link }, level: level + 1 });
    } else {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) stack.push({ v: (v as Record<string, unknown>)[keys[i]!], link: { key: keys[i]!, up: link }, level: level + 1 });
    }
  }
  return issues;
}

/**
 * Nesting deeper than MAX_DEPTH, or a value that contains itself, anywhere under `data` (at
 * `path`, `level` containers down: a scene's `settings` is at level 1); at most one issue.
 * Checked before anything else reads the data.
 */
export function checkStructure(data: unknown, path: readonly PropertyKey[] = [], level = path.length): SceneIssue[] {
  return walk(data, path, undefined, 1, level);
}

/** Every number under `data` (at `path`) beyond ±MAX_MAGNITUDE (and the nesting checkStructure refuses). */
export function checkMagnitudes(data: unknown, path: readonly PropertyKey[] = []): SceneIssue[] {
  return walk(data, path, (v, at) =>
    Number.isFinite(v) && Math.abs(v) > MAX_MAGNITUDE
      ? { path: at(), message: `expected a number from -1e9 to 1e9 (larger ones overflow the simulation), got ${v}` }
      : undefined);
}

/** A settings patch's practical limits (the schema checks the types and ranges). */
export function checkSettingsLimits(settings: unknown, path: readonly PropertyKey[]): SceneIssue[] {
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
  for (const key of ['rig', 'controlPoints', 'script', 'crowd', 'start']) issues.push(...checkMagnitudes(field(data, key), [key]));
  issues.push(...checkSettingsLimits(field(data, 'settings'), ['settings']));
  list(field(field(data, 'expect'), 'compare')).forEach((c, i) => {
    issues.push(...checkSettingsLimits(field(field(c, 'variant'), 'settings'), ['expect', 'compare', i, 'variant', 'settings']));
  });
  return issues;
}

/**
 * The control point a crowd's copies wander with (the one named, else the first the script
 * moves, else the first goal with a target), its home (where the script first sends it, else
 * its own target) and the root's head.
 */
export function crowdWanderer(scene: Scene, point: string | undefined) {
  const scripted = scene.script.find((e) => e.target)?.point;
  const wanderer = scene.controlPoints.find((c) => c.name === (point ?? scripted))
    ?? (point ? undefined : scene.controlPoints.find((c) => c.role !== 'pole' && c.target));
  const home = (wanderer && (scene.script.find((e) => e.point === wanderer.name && e.target)?.target ?? wanderer.target)) as Vec3Tuple | undefined;
  const rootHead = (scene.rig.bones.find((b) => b.parent === null)?.head ?? [0, 0, 0]) as Vec3Tuple;
  return { wanderer, home, rootHead };
}

/** `x` rounded down to 3 significant digits, for a bound in a message (never above `x`). */
function floor3(x: number): string {
  if (!(x > 0)) return '0';
  const unit = 10 ** (Math.floor(Math.log10(x)) - 2);
  const r = Math.floor(x / unit) * unit;
  return String(Number((r > x ? r - unit : r).toPrecision(3)));
}

/**
 * A validated scene's `crowd` block, checked for what its copies would be given: every copy's
 * positions (root head, targets, script and wander targets) are the scene's shifted by up to
 * side × spacing (side = ⌈√count⌉; sceneCrowd centres the grid on x and puts it behind the
 * origin on z), and each copy's input is validated like any rig's, within ±MAX_MAGNITUDE. A
 * spacing or radius that takes a copy beyond that is refused here, naming the crowd's field,
 * rather than later as a copy's internal path. Without a `spacing` the run uses 1.2 × the
 * rig's height, bounded here by 1.2 × the sum of its bone lengths (the height is the diameter
 * of the rest pose). Checked for the scene's `count` (the sandbox's `?crowd=N` may ask for more).
 */
export function crowdIssues(scene: Scene): SceneIssue[] {
  const c = scene.crowd;
  if (!c) return [];
  const side = Math.ceil(Math.sqrt(c.count));
  const far = (v: readonly number[] | undefined) => (v ? Math.max(Math.abs(v[0]!), Math.abs(v[1]!), Math.abs(v[2]!)) : 0);
  const { wanderer, home, rootHead } = crowdWanderer(scene, c.point);
  // the farthest coordinate of the positions a copy shifts
  let reach = far(rootHead);
  for (const p of scene.controlPoints) reach = Math.max(reach, far(p.target));
  for (const e of scene.script) reach = Math.max(reach, far(e.target));
  let lengths = 0;
  for (const b of scene.rig.bones) lengths += b.length;
  const spacing = c.spacing ?? 1.2 * lengths;
  const grid = side * spacing;
  const issues: SceneIssue[] = [];
  if (!(reach + grid <= MAX_MAGNITUDE)) {
    const most = floor3((MAX_MAGNITUDE - reach) / side);
    const message = c.spacing !== undefined
      ? `expected at most ${most} for ${c.count} copies (the grid reaches ${side} spacings from the origin: a larger spacing puts copies beyond ±1e9), got ${c.spacing}`
      : `expected a spacing of at most ${most} for ${c.count} copies (the default, 1.2 × the rig's height, may be up to ${spacing}: copies beyond ±1e9), got none`;
    issues.push({ path: c.spacing !== undefined ? 'crowd.spacing' : 'crowd', message });
    return issues;
  }
  if (wanderer && home) {
    const radius = c.radius ?? 0.5;
    const distance = Math.hypot(home[0] - rootHead[0], home[1] - rootHead[1], home[2] - rootHead[2]);
    const wander = far(home) + distance * radius + grid;
    if (!(wander <= MAX_MAGNITUDE)) {
      const most = floor3((MAX_MAGNITUDE - far(home) - grid) / distance);
      issues.push({
        path: c.radius !== undefined ? 'crowd.radius' : 'crowd',
        message: `expected a wander radius of at most ${most} (× ${distance}, the distance from the root to "${wanderer.name}"'s home; a larger one sends copies beyond ±1e9), got ${c.radius ?? 'the default 0.5'}`,
      });
    }
  }
  return issues;
}
