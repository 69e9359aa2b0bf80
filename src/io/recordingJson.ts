/**
 * The project's own lossless recording format: a Recording as JSON text and back.
 *
 * Exact: numbers are written with JavaScript's shortest round-trip form (Number::toString,
 * the same as JSON.stringify), and JSON.parse reads every such string back to the identical
 * double, so every finite value survives bit for bit. JSON.stringify would turn -0 into 0;
 * the writer writes "-0", which JSON.parse reads back as -0. NaN and ±Infinity have no JSON
 * form: the writer refuses them (a recording never holds them).
 *
 * Layout: a header (`format: "physik-recording"`, `version: 1`, rig, fps, frameCount), the
 * rest-pose `bones`, and flat arrays as in Recording (`times`, `steps`, `heads` frame × bone
 * × 3, `rotations` frame × bone × 4, x y z w), one line per frame.
 *
 * Reading validates with zod and cross-checks the counts; errors name the file and the path,
 * e.g. `rec.json: rotations: expected 4 × 18 × 61 numbers, got 100`.
 */
import { z } from 'zod';
import { formatPath } from '../core/validation/check';
import type { Recording, RecordedBone, Quat, Vec3 } from './recording';

export const RECORDING_FORMAT = 'physik-recording';
export const RECORDING_VERSION = 1;

export interface RecordingIssue {
  path: string;
  message: string;
}

/** A recording file failed to load; `message` has one `<file>: <path>: <message>` line per issue. */
export class RecordingError extends Error {
  override name = 'RecordingError';
  constructor(
    readonly issues: RecordingIssue[],
    readonly file: string | undefined = undefined,
  ) {
    super(issues.map((i) => `${file ? `${file}: ` : ''}${i.path}: ${i.message}`).join('\n'));
  }
}

// ───────────────────────────── writing ─────────────────────────────

function num(x: number, where: () => string): string {
  if (!Number.isFinite(x)) throw new Error(`recordingToJson: ${where()} is ${x}; a recording holds finite numbers only`);
  return Object.is(x, -0) ? '-0' : String(x);
}

function numbers(a: ArrayLike<number>, from: number, to: number, name: string): string {
  const out: string[] = [];
  for (let i = from; i < to; i++) out.push(num(a[i]!, () => `${name}[${i}]`));
  return out.join(',');
}

/** Flat array `a` (first `frames × perFrame` values) as JSON, one line per frame. */
function rows(a: ArrayLike<number>, frames: number, perFrame: number, name: string): string {
  if (frames === 0 || perFrame === 0) return '[]';
  const lines: string[] = [];
  for (let f = 0; f < frames; f++) lines.push(`    ${numbers(a, f * perFrame, (f + 1) * perFrame, name)}`);
  return `[\n${lines.join(',\n')}\n  ]`;
}

/** The recording as JSON text (exact; see the header). */
export function recordingToJson(rec: Recording): string {
  const f = rec.frameCount, n = rec.bones.length;
  const arr = (a: readonly number[], name: string) => `[${numbers(a, 0, a.length, name)}]`;
  const bones = rec.bones.map((b, i) => {
    const p = `bones[${i}]`;
    return `    {"name":${JSON.stringify(b.name)},"parent":${num(b.parent, () => `${p}.parent`)},"length":${num(b.length, () => `${p}.length`)},` +
      `"offset":${arr(b.offset, `${p}.offset`)},"restLocal":${arr(b.restLocal, `${p}.restLocal`)},` +
      `"restWorld":${arr(b.restWorld, `${p}.restWorld`)},"restHead":${arr(b.restHead, `${p}.restHead`)}}`;
  });
  return [
    '{',
    `  "format": ${JSON.stringify(RECORDING_FORMAT)},`,
    `  "version": ${RECORDING_VERSION},`,
    `  "rig": ${JSON.stringify(rec.rig)},`,
    `  "fps": ${num(rec.fps, () => 'fps')},`,
    `  "frameCount": ${f},`,
    `  "bones": [\n${bones.join(',\n')}\n  ],`,
    `  "times": ${rows(rec.times, 1, f, 'times')},`,
    `  "steps": ${rows(rec.steps, 1, f, 'steps')},`,
    `  "heads": ${rows(rec.heads, f, n * 3, 'heads')},`,
    `  "rotations": ${rows(rec.rotations, f, n * 4, 'rotations')}`,
    '}',
    '',
  ].join('\n');
}

// ───────────────────────────── reading ─────────────────────────────

// zod 4's z.number() rejects NaN and ±Infinity, so every number here is finite.
const num3 = z.tuple([z.number(), z.number(), z.number()], { error: 'expected [x, y, z] (3 numbers)' });
const num4 = z.tuple([z.number(), z.number(), z.number(), z.number()], { error: 'expected [x, y, z, w] (4 numbers)' });

const boneSchema = z.strictObject({
  name: z.string().min(1),
  parent: z.number().int().gte(-1),
  length: z.number().gt(0),
  offset: num3,
  restLocal: num4,
  restWorld: num4,
  restHead: num3,
});

const recordingSchema = z.strictObject({
  format: z.literal(RECORDING_FORMAT),
  version: z.literal(RECORDING_VERSION),
  rig: z.string().min(1),
  fps: z.number().gt(0).lte(1000),
  frameCount: z.number().int().gte(0),
  bones: z.array(boneSchema).min(1),
  times: z.array(z.number().gte(0)),
  steps: z.array(z.number().int().gte(-2147483648).lte(2147483647)),
  heads: z.array(z.number()),
  rotations: z.array(z.number()),
});

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v);
  if (Array.isArray(v)) return `an array of ${v.length} items`;
  if (v !== null && typeof v === 'object') return 'an object';
  return String(v);
}

function fromZod(iss: z.core.$ZodIssue): RecordingIssue {
  const path = formatPath(iss.path);
  const input = (iss as { input?: unknown }).input;
  const got = `got ${describe(input)}`;
  switch (iss.code) {
    case 'unrecognized_keys':
      return { path, message: `unknown key(s) ${iss.keys.map((k) => `"${k}"`).join(', ')}` };
    case 'invalid_type': {
      if (input === undefined) return { path, message: `missing required field (expected ${iss.expected})` };
      if (iss.message.startsWith('expected [')) return { path, message: `${iss.message}, ${got}` };
      if (iss.expected === 'number' && typeof input === 'number') return { path, message: `expected a finite number, ${got}` };
      return { path, message: `expected ${iss.expected === 'int' ? 'an integer' : `a ${iss.expected}`}, ${got}` };
    }
    case 'too_small':
    case 'too_big': {
      const op = (iss.code === 'too_small' ? '>' : '<') + (iss.inclusive ? '=' : '');
      const bound = iss.code === 'too_small' ? iss.minimum : iss.maximum;
      if (iss.origin === 'array') return { path, message: `expected ${iss.code === 'too_small' ? 'at least' : 'at most'} ${bound} item(s), ${got}` };
      if (iss.origin === 'string') return { path, message: `expected a non-empty string, ${got}` };
      return { path, message: `expected a number ${op} ${bound}, ${got}` };
    }
    case 'invalid_value':
      return { path, message: `expected ${iss.values.map((v) => JSON.stringify(v)).join(' or ')}, ${got}` };
    default:
      return { path, message: `${iss.message}, ${got}` };
  }
}

/** At most this many issues are listed (a file of garbage numbers would give thousands). */
const MAX_ISSUES = 10;

function fail(issues: RecordingIssue[], file: string | undefined): never {
  const shown = issues.slice(0, MAX_ISSUES);
  if (issues.length > MAX_ISSUES) shown.push({ path: '(root)', message: `... and ${issues.length - MAX_ISSUES} more issue(s)` });
  throw new RecordingError(shown, file);
}

function lineColumn(text: string, index: number): string {
  const before = text.slice(0, index);
  return `line ${before.split('\n').length}, column ${index - before.lastIndexOf('\n')}`;
}

function parseJson(text: string, file: string | undefined): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const raw = e instanceof Error ? e.message : String(e);
    const bare = /(?<![\w"])-?(?:NaN|Infinity)\b/.exec(text);
    const pos = /at position (\d+)/.exec(raw);
    let message: string;
    if (bare && (!pos || Number(pos[1]) >= bare.index)) {
      message = `invalid JSON at ${lineColumn(text, bare.index)}: ${bare[0]} is not allowed in JSON (a recording holds finite numbers only)`;
    } else if (/Unexpected end of JSON input/.test(raw) || (pos && Number(pos[1]) >= text.trimEnd().length)) {
      message = `invalid JSON: the text ends early (truncated file?) after ${text.length} characters`;
    } else if (pos) {
      message = `invalid JSON at ${lineColumn(text, Number(pos[1]))}: ${raw.replace(/ in JSON at position.*$/s, '')}`;
    } else {
      message = `invalid JSON: ${raw}`;
    }
    fail([{ path: '(root)', message }], file);
  }
}

/** Read a recording written by `recordingToJson`; throws a RecordingError naming the file and path. */
export function recordingFromJson(text: string, file?: string): Recording {
  const data = parseJson(text, file);
  // the format tag first: another kind of file should say so, not list every missing field
  const head = data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : undefined;
  if (!head || head.format !== RECORDING_FORMAT) {
    fail([{ path: head ? 'format' : '(root)', message: `expected "${RECORDING_FORMAT}" (a physik recording), got ${describe(head ? head.format : data)}` }], file);
  }
  if (typeof head.version === 'number' && head.version > RECORDING_VERSION) {
    fail([{ path: 'version', message: `this reader knows version ${RECORDING_VERSION}; the file has version ${head.version} (written by a newer physik)` }], file);
  }
  const parsed = recordingSchema.safeParse(data, { reportInput: true });
  if (!parsed.success) fail(parsed.error.issues.map(fromZod), file);
  const d = parsed.data;

  const issues: RecordingIssue[] = [];
  const f = d.frameCount, n = d.bones.length;
  const names = new Map<string, number>();
  d.bones.forEach((b, i) => {
    const first = names.get(b.name);
    if (first !== undefined) issues.push({ path: `bones[${i}].name`, message: `duplicate bone name "${b.name}" (first used by bones[${first}])` });
    else names.set(b.name, i);
    if (i === 0 ? b.parent !== -1 : b.parent < 0 || b.parent >= i) {
      issues.push({ path: `bones[${i}].parent`, message: i === 0 ? `expected -1 (the root comes first), got ${b.parent}` : `expected the index of an earlier bone (0..${i - 1}), got ${b.parent}` });
    }
  });
  const count = (key: 'times' | 'steps' | 'heads' | 'rotations', shape: number[]) => {
    const want = shape.reduce((a, b) => a * b, 1);
    if (d[key].length !== want) issues.push({ path: key, message: `expected ${shape.join(' × ')} numbers, got ${d[key].length}` });
  };
  count('times', [f]);
  count('steps', [f]);
  count('heads', [3, n, f]);
  count('rotations', [4, n, f]);
  if (issues.length) fail(issues, file);

  for (let k = 1; k < f; k++) {
    if (d.times[k]! < d.times[k - 1]!) { issues.push({ path: `times[${k}]`, message: `expected times in order (>= ${d.times[k - 1]}), got ${d.times[k]}` }); break; }
  }
  // rotations are unit quaternions (as the world keeps them, to rounding)
  for (let q = 0; q < f * n && issues.length < MAX_ISSUES; q++) {
    const r = d.rotations;
    const len = Math.hypot(r[q * 4]!, r[q * 4 + 1]!, r[q * 4 + 2]!, r[q * 4 + 3]!);
    if (Math.abs(len - 1) > 1e-6) {
      issues.push({ path: `rotations[${q * 4}..${q * 4 + 3}]`, message: `expected a unit quaternion (frame ${Math.floor(q / n)}, bone "${d.bones[q % n]!.name}"), got length ${len}` });
    }
  }
  if (issues.length) fail(issues, file);

  const bones: RecordedBone[] = d.bones.map((b) => ({
    name: b.name, parent: b.parent, length: b.length,
    offset: [...b.offset] as Vec3, restLocal: [...b.restLocal] as Quat, restWorld: [...b.restWorld] as Quat, restHead: [...b.restHead] as Vec3,
  }));
  return {
    rig: d.rig,
    fps: d.fps,
    bones,
    frameCount: f,
    times: Float64Array.from(d.times),
    steps: Int32Array.from(d.steps),
    heads: Float64Array.from(d.heads),
    rotations: Float64Array.from(d.rotations),
  };
}
