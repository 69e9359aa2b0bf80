/**
 * Zod schema for scene files. Parsing yields a fully defaulted `Scene` (settings merged
 * over `defaultSettings`, empty control points and script, 400 steps). Cross-references
 * (parents, roots, cycles, names) are checked separately in `check.ts`.
 *
 * Message convention: custom messages start with "expected ..."; the loader appends
 * ", got <value>" to them, so keep them phrased as what was expected.
 * This module must stay free of Node imports (the browser sandbox uses it).
 */
import { z } from 'zod';
import type { QuatTuple, Scene, Settings, Vec3Tuple } from '../../world/types';
import { defaultSettings, settingEnums, settingRanges } from '../settings';

/** Strict object (typos in keys are errors) whose unknown-key issue lists the allowed keys. */
function strict<T extends z.ZodRawShape>(shape: T) {
  const allowed = `allowed: ${Object.keys(shape).join(', ')}`;
  return z.strictObject(shape, {
    error: (iss) => (iss.code === 'unrecognized_keys' ? allowed : undefined),
  });
}

// zod 4's z.number() already rejects NaN and ±Infinity, so every number here is finite.
const num = z.number();
const name = z.string().min(1);
const unit = num.gte(0).lte(1);
const vec3 = z.tuple([num, num, num], { error: 'expected [x, y, z] (3 numbers)' });
const angle = num.gte(-180).lte(180);

const axisLimit = z.union(
  [
    z.literal('free'),
    z.tuple([angle, angle]).refine(([min, max]) => min <= max, { error: 'expected [min, max] with min <= max' }),
  ],
  { error: 'expected "free" or [minDeg, maxDeg]' },
);

const boneSchema = strict({
  name,
  // Required, so a root has to say `null` explicitly rather than forget its parent.
  parent: z.string({ error: 'expected a bone name or null' }).min(1).nullable(),
  direction: vec3
    .refine((v) => Math.hypot(...v) > 0, { error: 'expected a non-zero direction' })
    .transform((v): Vec3Tuple => {
      const n = Math.hypot(...v);
      return [v[0] / n, v[1] / n, v[2] / n];
    }),
  roll: num.optional(),
  length: num.gt(0),
  radius: num.gt(0).optional(),
  mass: num.gt(0).optional(),
  head: vec3.optional(),
  attach: unit.optional(),
  offset: vec3.optional(),
  limits: strict({ x: axisLimit.optional(), y: axisLimit.optional(), z: axisLimit.optional() }).optional(),
  limitStiffness: num.gte(0).optional(),
});

const rigSchema = strict({
  name,
  root: z.enum(['floating', 'pinned']).optional(),
  density: num.gt(0).optional(),
  bones: z.array(boneSchema).min(1),
});

export const controlPointSchema = strict({
  name,
  bone: name,
  at: unit.optional(),
  offset: vec3.optional(),
  target: vec3.optional(),
  stiffness: num.gte(0).optional(),
  spring: z.enum(['linear', 'capped']).optional(),
  cap: num.gt(0).optional(),
  active: z.boolean().optional(),
  role: z.enum(['goal', 'pole']).optional(),
});

/** One setting's schema, derived from its default's type and the shared range/enum tables. */
function settingSchema(key: string, def: unknown): z.ZodType {
  const values = settingEnums[key];
  if (values) return z.enum(values as [string, ...string[]]);
  if (typeof def === 'boolean') return z.boolean();
  if (typeof def === 'string') return z.string();
  const r = settingRanges[key] ?? {};
  let s = num;
  if (r.integer) s = s.int();
  if (r.min !== undefined) s = r.exclusiveMin ? s.gt(r.min) : s.gte(r.min);
  if (r.max !== undefined) s = s.lte(r.max);
  return s;
}

/**
 * A patch that states `damping` but not `dampingAuto` means that damping: automatic damping
 * (the default) is switched off. Scenes that state no damping keep the automatic one.
 */
export function resolveDampingAuto(patch: Partial<Settings>): Partial<Settings> {
  return patch.damping !== undefined && patch.dampingAuto === undefined ? { ...patch, dampingAuto: false } : patch;
}

/** A partial `Settings` object: every key optional, unknown keys rejected. */
export const settingsPatchSchema = strict(
  Object.fromEntries(
    Object.entries(defaultSettings).map(([key, def]) => [key, settingSchema(key, def).optional()]),
  ),
).transform((p) => resolveDampingAuto(p as Partial<Settings>)) as unknown as z.ZodType<Partial<Settings>>;

/** Merge a patch over the defaults; explicit `undefined` values keep the default. */
export function withDefaultSettings(patch: Partial<Settings> = {}): Settings {
  const defined = Object.entries(patch).filter(([, v]) => v !== undefined);
  return { ...defaultSettings, ...Object.fromEntries(defined) } as Settings;
}

const scriptEventSchema = strict({
  step: num.int().gte(0),
  point: name,
  target: vec3.optional(),
  active: z.boolean().optional(),
}).refine((e) => e.target !== undefined || e.active !== undefined, {
  error: 'expected a target and/or active',
});

/**
 * An object keyed by names the scene chooses (a metric, a control point) with `value` for
 * each: parsed into an object without a prototype, so every name, `__proto__` and
 * `constructor` too, is kept as a key of its own (z.record builds a plain object, where
 * assigning `__proto__` sets the prototype instead and the entry vanishes).
 */
function nameRecord<T extends z.ZodType>(value: T) {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  return z.custom<Record<string, unknown>>(isObject, { error: 'expected an object' }).transform((obj, ctx) => {
    const out = Object.create(null) as Record<string, z.output<T>>;
    for (const key of Object.keys(obj)) {
      const r = value.safeParse(obj[key], { reportInput: true });
      if (r.success) out[key] = r.data;
      else for (const iss of r.error.issues) ctx.issues.push({ ...iss, path: [key, ...iss.path] } as never);
    }
    return out;
  });
}

const rangeSchema = strict({ min: num.optional(), max: num.optional() }).refine(
  (r) => r.min === undefined || r.max === undefined || r.min <= r.max,
  { error: 'expected min <= max' },
);

const expectSchema = strict({
  finite: z.boolean().optional(),
  converged: z.boolean().optional(),
  metrics: nameRecord(rangeSchema).optional(),
  targets: nameRecord(rangeSchema).optional(),
  compare: z
    .array(
      strict({
        name,
        metric: name,
        variant: strict({ settings: settingsPatchSchema.optional() }),
        relation: z.enum(['less', 'greater']),
      }),
    )
    .optional(),
});

/** How far from length 1 a starting pose's quaternion may be (hand-written ones are normalised). */
export const QUAT_TOLERANCE = 1e-3;

/**
 * A unit quaternion [x, y, z, w]. One within 1e-12 of unit length (a saved pose) is kept as it
 * is, bit for bit; one within QUAT_TOLERANCE is normalised; others are refused.
 */
const quat = z.tuple([num, num, num, num], { error: 'expected a quaternion [x, y, z, w] (4 numbers)' })
  .refine((q) => Math.abs(Math.hypot(...q) - 1) <= QUAT_TOLERANCE, { error: `expected a unit quaternion [x, y, z, w] (length 1 within ${QUAT_TOLERANCE})` })
  .transform((q): QuatTuple => {
    const n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (Math.abs(n2 - 1) <= 1e-12) return [q[0], q[1], q[2], q[3]];
    const n = Math.sqrt(n2);
    return [q[0] / n, q[1] / n, q[2] / n, q[3] / n];
  });

/** A rig's starting pose: the root's head and world rotations by bone name (check.ts checks the names). */
const startSchema = strict({
  head: vec3.optional(),
  bones: nameRecord(quat).default(() => Object.create(null) as Record<string, QuatTuple>),
});

/** Most copies in a crowd (the sandbox's limit too). */
export const CROWD_MAX = 1000;

const crowdSchema = strict({
  count: num.int().gte(1).lte(CROWD_MAX),
  spacing: num.gt(0).optional(),
  every: num.int().gte(1).optional(),
  radius: num.gte(0).optional(),
  point: name.optional(),
  seed: num.int().optional(),
});

const markerMode = z.enum(['follow', 'drive', 'free']);

/** A capture (src/capture): the clip, its markers and the script of their modes. */
const captureSchema = strict({
  clip: strict({
    file: z.string().min(1).optional(),
    text: z.string().min(1).optional(),
    format: z.enum(['bvh', 'recording']).optional(),
  }).refine((c) => c.file !== undefined || c.text !== undefined, { error: 'expected a file (relative to the scene file) or the text of the clip' }),
  stiffness: num.gt(0).optional(),
  dampingRatio: num.gte(0).optional(),
  start: num.gte(0).optional(),
  markers: z.array(strict({
    name,
    bones: z.array(name).min(1),
    kind: z.enum(['world', 'pose']),
    mode: markerMode.optional(),
    stiffness: num.gte(0).optional(),
    damping: num.gte(0).optional(),
    at: unit.optional(),
  })),
  script: z.array(strict({ step: num.int().gte(0), marker: name, mode: markerMode })).optional(),
});

/** The annotation makes tsc check that the parsed output really is a `Scene`. */
export const sceneSchema: z.ZodType<Scene> = strict({
  name,
  description: z.string().optional(),
  rig: rigSchema,
  controlPoints: z.array(controlPointSchema).default(() => []),
  settings: settingsPatchSchema.optional().transform((s) => withDefaultSettings(s)),
  steps: num.int().gte(0).default(400),
  script: z.array(scriptEventSchema).default(() => []),
  start: startSchema.optional(),
  secondaryBones: z.array(name).optional(),
  crowd: crowdSchema.optional(),
  capture: captureSchema.optional(),
  expect: expectSchema.optional(),
});
