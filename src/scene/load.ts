/**
 * Scene validation and parsing with readable, path-qualified errors. Browser-safe: the
 * file-reading `loadSceneFile` lives in `loadFile.ts` so bundles never pull in `node:fs`.
 */
import type { z } from 'zod';
import type { ControlPointDescription, Scene } from './types';
import { controlPointSchema, sceneSchema } from './schema';
import { checkReferences, formatPath, type SceneIssue } from './check';

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
function describe(v: unknown): string {
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
    return `an object with keys ${entries.map(([k]) => k).join(', ')}`;
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

/** Turn one zod issue into "expected X, got Y" messages (one per unknown key). */
function fromZod(iss: z.core.$ZodIssue): SceneIssue[] {
  const path = formatPath(iss.path);
  const input = (iss as { input?: unknown }).input;
  const got = `got ${describe(input)}`;
  const one = (message: string) => [{ path, message }];

  if (iss.code === 'unrecognized_keys') {
    // The schema's strict() puts "allowed: ..." in the message.
    return iss.keys.map((k) => ({ path: formatPath([...iss.path, k]), message: `unknown key "${k}" (${iss.message})` }));
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

/** Validate without throwing. `file` is accepted for symmetry; issues carry paths only. */
export function validateScene(
  data: unknown,
  file?: string,
): { ok: true; scene: Scene } | { ok: false; issues: SceneIssue[] } {
  void file;
  const result = sceneSchema.safeParse(data, { reportInput: true });
  // Reference checks run even when the schema fails, so one pass reports everything.
  const issues = [...(result.success ? [] : result.error.issues.flatMap(fromZod)), ...checkReferences(data)];
  if (result.success && issues.length === 0) return { ok: true, scene: result.data };
  return { ok: false, issues };
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
  const result = controlPointSchema.safeParse(data, { reportInput: true });
  if (result.success) return result.data as ControlPointDescription;
  throw new SceneError(result.error.issues.flatMap(fromZod).map((i) => ({
    ...i,
    path: i.path === '(root)' ? where : i.path.startsWith('[') ? `${where}${i.path}` : `${where}.${i.path}`,
  })));
}

function lineColumn(text: string, index: number): string {
  const before = text.slice(0, index);
  const line = before.split('\n').length;
  return `line ${line}, column ${index - before.lastIndexOf('\n')}`;
}

/** First NaN / Infinity token outside a string: valid JavaScript, invalid JSON. */
function findBareNumber(text: string): { index: number; token: string } | undefined {
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === 'N' || c === 'I' || c === '-') {
      const m = /^-?(?:NaN|Infinity)/.exec(text.slice(i, i + 9));
      if (m) return { index: i, token: m[0] };
    }
  }
  return undefined;
}

/** Parse JSON text, then the scene. JSON syntax errors name the line and column when known. */
export function parseSceneText(text: string, file?: string): Scene {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    const raw = e instanceof Error ? e.message : String(e);
    // V8 reports "... at position N" for most errors but not for an unexpected token.
    const pos = /at position (\d+)/.exec(raw);
    const bare = findBareNumber(text);
    let message: string;
    if (bare && (!pos || Number(pos[1]) >= bare.index)) {
      message = `invalid JSON at ${lineColumn(text, bare.index)}: ${bare.token} is not allowed in JSON (use a finite number)`;
    } else if (pos) {
      message = `invalid JSON at ${lineColumn(text, Number(pos[1]))}: ${raw.replace(/ in JSON at position.*$/s, '')}`;
    } else {
      message = `invalid JSON: ${raw}`;
    }
    throw new SceneError([{ path: '(root)', message }], file);
  }
  return parseScene(data, file);
}
