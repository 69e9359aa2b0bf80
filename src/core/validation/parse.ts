/**
 * Validation of what the plugin is given, a scene or a rig's parts (rig, control points,
 * settings), with readable, path-qualified errors: the schema (schema.ts), the checks it cannot
 * express (check.ts), and zod's issues in the house style (`path: expected …, got …`). Parsing a
 * scene file's text (line and column of JSON errors) is src/scene/load.ts's.
 */
import type { z } from 'zod';
import type { ControlPointDescription, Scene } from '../../world/types';
import { controlPointSchema, sceneSchema } from './schema';
import { checkLimits, checkMagnitudes, checkReferences, checkSize, checkStructure, crowdIssues, formatPath, type SceneIssue } from './check';

export type { SceneIssue } from './check';

/** A scene failed to load; `message` has one `<file>: <path>: <message>` line per issue. */
export class SceneError extends Error {
  override name = 'SceneError';
  constructor(
    readonly issues: SceneIssue[],
    readonly file: string | undefined = undefined,
  ) {
    super(issues.map((i) => `${file ? `${file}: ` : ''}${i.path}: ${i.message}`).join('\n'));
  }
}

/** Short rendering of a value for "got ..." (the input may be huge; keep it to one line). */
export function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v);
  if (Array.isArray(v)) {
    const simple = v.length <= 4 && v.every((x) => x === null || typeof x !== 'object');
    return simple ? `[${v.map(describe).join(', ')}]` : `an array of ${v.length} items`;
  }
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v);
    const simple = entries.length <= 4 && entries.every(([, x]) => x === null || typeof x !== 'object');
    if (simple) return `{ ${entries.map(([k, x]) => `${k}: ${describe(x)}`).join(', ')} }`;
    const keys = entries.slice(0, 12).map(([k]) => k);
    return `an object with keys ${keys.join(', ')}${entries.length > 12 ? `, ... (${entries.length} keys)` : ''}`;
  }
  return String(v); // numbers (incl. NaN, Infinity), booleans, null
}

const typeNames: Record<string, string> = {
  number: 'a number',
  int: 'an integer',
  string: 'a string',
  boolean: 'true or false',
  array: 'an array',
  tuple: 'an array',
  object: 'an object',
  record: 'an object',
};

/**
 * Zod issues as scene issues ("expected X, got Y", one per unknown key), their paths under
 * `prefix` (e.g. `['settings']`). Parse with `{ reportInput: true }` so "got" can show the value.
 */
export function issuesFromZod(issues: readonly z.core.$ZodIssue[], prefix: PropertyKey[] = []): SceneIssue[] {
  return issues.flatMap((iss) => fromZod({ ...iss, path: [...prefix, ...iss.path] } as z.core.$ZodIssue));
}

/** Turn one zod issue into "expected X, got Y" messages (one per unknown key). */
function fromZod(iss: z.core.$ZodIssue): SceneIssue[] {
  const path = formatPath(iss.path);
  const input = (iss as { input?: unknown }).input;
  const got = `got ${describe(input)}`;
  const one = (message: string) => [{ path, message }];

  if (iss.code === 'unrecognized_keys') {
    // The schema's strict() puts "allowed: ..." in the message. A few keys are listed one by
    // one; the rest counted (an object of a million keys would give a message of gigabytes).
    const listed = iss.keys.slice(0, MAX_KEYS_LISTED).map((k) => ({ path: formatPath([...iss.path, k]), message: `unknown key "${k}" (${iss.message})` }));
    const more = iss.keys.length - listed.length;
    return more > 0 ? [...listed, { path, message: `${more} more unknown keys (not listed; ${iss.message})` }] : listed;
  }
  const custom = iss.message.startsWith('expected ') ? iss.message : undefined;
  if (iss.code === 'invalid_type') {
    const expected = custom ?? `expected ${typeNames[iss.expected] ?? iss.expected}`;
    if (input === undefined) return one(`missing required field (${expected})`);
    if (iss.expected === 'number' && typeof input === 'number') return one(`expected a finite number, ${got}`);
    return one(`${expected}, ${got}`);
  }
  if (custom) return one(`${custom}, ${got}`);
  if (iss.code === 'too_small' || iss.code === 'too_big') {
    const small = iss.code === 'too_small';
    const bound = small ? iss.minimum : iss.maximum;
    const op = (small ? '>' : '<') + (iss.inclusive ? '=' : '');
    if (iss.origin === 'number') return one(`expected a number ${op} ${bound}, ${got}`);
    // zod's own bound on integers (the safe range, ±9007199254740991)
    if (iss.origin === 'int') return one(`expected a whole number ${op} ${bound}, ${got}`);
    if (iss.origin === 'string' && small && Number(bound) === 1) return one(`expected a non-empty string, ${got}`);
    if (iss.origin === 'array') {
      const n = Array.isArray(input) ? input.length : '?';
      return one(`expected ${small ? 'at least' : 'at most'} ${bound} item(s), got ${n}`);
    }
  }
  if (iss.code === 'invalid_value') {
    return one(`expected one of ${iss.values.map((v) => JSON.stringify(v)).join(', ')}, ${got}`);
  }
  return one(`${iss.message}, ${got}`);
}

/** Unknown keys of one object listed one by one; beyond, one issue counts the rest. */
const MAX_KEYS_LISTED = 20;
/** Issues a scene's validation lists; beyond, one issue counts the rest (see `capped`). */
export const MAX_ISSUES = 200;

/** The first MAX_ISSUES issues, and one that counts the rest (hostile input may have millions). */
function capped(issues: SceneIssue[]): SceneIssue[] {
  if (issues.length <= MAX_ISSUES) return issues;
  return [...issues.slice(0, MAX_ISSUES), { path: '(root)', message: `${issues.length - MAX_ISSUES} more problems (not listed)` }];
}

/** Validate without throwing. `file` is accepted for symmetry; issues carry paths only. */
export function validateScene(
  data: unknown,
  file?: string,
): { ok: true; scene: Scene } | { ok: false; issues: SceneIssue[] } {
  void file;
  // A rig too big to build, or nesting no scene has, is refused before the full validation.
  const early = [...checkSize(data), ...checkStructure(data)];
  if (early.length) return { ok: false, issues: early };
  const result = sceneSchema.safeParse(data, { reportInput: true });
  // Reference checks run even when the schema fails, so one pass reports everything.
  const issues = [...(result.success ? [] : result.error.issues.flatMap(fromZod)), ...checkReferences(data), ...checkLimits(data)];
  // what the crowd's copies would be given, once the rest holds
  if (result.success && issues.length === 0) issues.push(...crowdIssues(result.data));
  if (result.success && issues.length === 0) return { ok: true, scene: result.data };
  return { ok: false, issues: capped(issues) };
}

/** Validate and default a scene object; throws a `SceneError` listing every issue. */
export function parseScene(data: unknown, file?: string): Scene {
  const r = validateScene(data, file);
  if (!r.ok) throw new SceneError(r.issues, file);
  return r.scene;
}

/**
 * Validate one control point description (as added to a live rig); throws a `SceneError`
 * whose paths start at `where` (e.g. `controlPoints[3]`).
 */
export function parseControlPoint(data: unknown, where = 'controlPoint'): ControlPointDescription {
  const under = (issues: SceneIssue[]) => new SceneError(issues.map((i) => ({
    ...i,
    path: i.path === '(root)' ? where : i.path.startsWith('[') ? `${where}${i.path}` : `${where}.${i.path}`,
  })));
  // a control point is nested as in a scene (controlPoints[i]: two levels down)
  const structure = checkStructure(data, [], 2);
  if (structure.length) throw under(structure);
  const result = controlPointSchema.safeParse(data, { reportInput: true });
  const limits = checkMagnitudes(data);
  if (result.success && limits.length === 0) return result.data as ControlPointDescription;
  throw under(capped([...(result.success ? [] : result.error.issues.flatMap(fromZod)), ...limits]));
}
