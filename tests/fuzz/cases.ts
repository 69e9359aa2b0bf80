/**
 * The random cases of the fuzz run (fast-check arbitraries): a random rig, its control points,
 * settings and target jumps, as tests/fuzz/rigs.ts describes; and a case's seed, summary and
 * copy-pasteable form for reports.
 */
import fc from 'fast-check';
import { defaultSettings, settingEnums, settingRanges } from '../../src/core/settings';
import { settingsPatchSchema } from '../../src/core/validation/schema';
import type { AxisLimit, BoneDescription, ControlPointDescription, Settings } from '../../src/scene/types';

export type V3 = [number, number, number];

export interface Jump {
  /** Fraction of the run (0..0.5) at which the target jumps. */
  at: number;
  /** Index into the control points (modulo their count). */
  cp: number;
  dir: V3;
  /** Distance from the root's head as a multiple of the rig's reach (sum of bone lengths). */
  factor: number;
}

export interface FuzzCase {
  bones: BoneDescription[];
  root: 'floating' | 'pinned';
  controlPoints: ControlPointDescription[];
  settings: Partial<Settings>;
  jumps: Jump[];
}

// ---------- arbitraries ----------

/**
 * Uniform in [lo, hi] on a grid of 2^20 steps. (fc.double is uniform over the bit patterns of
 * doubles, so nearly all its values sit next to zero; this is uniform over the interval and
 * shrinks toward lo.)
 */
const GRID = 1 << 20;
const uniform = (lo: number, hi: number) => fc.integer({ min: 0, max: GRID }).map((i) => lo + ((hi - lo) * i) / GRID);

/** Log-uniform in [lo, hi], rounded to 6 significant digits (readable counterexamples). */
const logUniform = (lo: number, hi: number) =>
  uniform(Math.log10(lo), Math.log10(hi)).map((e) => Number((10 ** e).toPrecision(6)));

const unitDouble = fc.integer({ min: 0, max: GRID - 1 }).map((i) => i / GRID);

const direction: fc.Arbitrary<V3> = fc
  .tuple(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1))
  .map(([x, y, z]) => [Number(x.toFixed(4)), Number(y.toFixed(4)), Number(z.toFixed(4))] as V3)
  .filter(([x, y, z]) => Math.hypot(x, y, z) > 1e-3);

const degrees = fc.integer({ min: -180, max: 180 });

const axisLimit: fc.Arbitrary<AxisLimit> = fc.oneof(
  { weight: 4, arbitrary: fc.constant('free' as const) },
  { weight: 3, arbitrary: fc.tuple(degrees, degrees).map(([a, b]): AxisLimit => [Math.min(a, b), Math.max(a, b)]) },
  { weight: 1, arbitrary: fc.constant([0, 0] as AxisLimit) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: -5, max: 0 }), fc.integer({ min: 0, max: 5 })).map(([a, b]): AxisLimit => [a, b]) },
);

const length = fc.oneof(
  { weight: 6, arbitrary: logUniform(0.01, 10) },
  { weight: 1, arbitrary: logUniform(1e-4, 1e-2) },
  { weight: 1, arbitrary: logUniform(10, 1000) },
);

interface BoneSpec {
  back: number;
  direction: V3;
  roll: number;
  length: number;
  mass: number;
  attach: number;
  limits: { x: AxisLimit; y: AxisLimit; z: AxisLimit } | null;
}

/** Limits whose range contains the rest pose (min <= 0 <= max). */
const axisLimitAroundRest: fc.Arbitrary<AxisLimit> = fc.oneof(
  { weight: 4, arbitrary: fc.constant('free' as const) },
  { weight: 4, arbitrary: fc.tuple(fc.integer({ min: -180, max: 0 }), fc.integer({ min: 0, max: 180 })).map(([a, b]): AxisLimit => [a, b]) },
  { weight: 1, arbitrary: fc.constant([0, 0] as AxisLimit) },
);

/** Knobs of the generator (the defaults are the full family the fuzzing runs). */
export interface CaseOptions {
  settings: 'default' | 'random' | 'any';
  maxBones?: number;
  /** 'wide' (default): lengths 1e-4..1000; 'moderate': 0.05..5. */
  lengths?: 'wide' | 'moderate';
  /** 'random' (default): 0.01..100 whatever the length; 'density': the scene default (length). */
  masses?: 'random' | 'density';
  /** 'random' (default): anywhere in [-180, 180]; 'around-rest': min <= 0 <= max; 'none'. */
  limits?: 'random' | 'around-rest' | 'none';
}

function boneSpec(o: CaseOptions): fc.Arbitrary<BoneSpec> {
  const axis = o.limits === 'around-rest' ? axisLimitAroundRest : axisLimit;
  return fc.record({
    back: unitDouble, // parent = i − 1 − ⌊back × i⌋ (0 → a chain)
    direction,
    roll: degrees,
    length: o.lengths === 'moderate' ? logUniform(0.05, 5) : length,
    mass: o.masses === 'density' ? fc.constant(0) : logUniform(0.01, 100),
    attach: fc.oneof({ weight: 4, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: unitDouble.map((a) => Number(a.toFixed(3))) }),
    limits: o.limits === 'none' ? fc.constant(null) : fc.option(fc.record({ x: axis, y: axis, z: axis }), { freq: 3 }),
  });
}

interface PointSpec { bone: number; at: number; stiffness: number; spring: 'linear' | 'capped'; cap: number | null }

const pointSpec: fc.Arbitrary<PointSpec> = fc.record({
  bone: unitDouble,
  at: fc.oneof({ weight: 3, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: unitDouble.map((a) => Number(a.toFixed(3))) }),
  stiffness: logUniform(0.1, 1000),
  spring: fc.constantFrom('linear' as const, 'capped' as const),
  cap: fc.option(logUniform(1e-3, 100), { freq: 3 }),
});

const jump: fc.Arbitrary<Jump> = fc.record({
  at: uniform(0, 0.5),
  cp: fc.nat(4),
  dir: direction,
  factor: logUniform(0.1, 100),
});

/** Practical spans for settings whose validated range is open-ended (or too slow at its edge). */
const settingSpans: Record<string, fc.Arbitrary<unknown>> = {
  dt: logUniform(1e-3, 1),
  damping: fc.oneof(fc.constant(0), logUniform(0.01, 200)),
  angularDamping: fc.oneof(fc.constant(0), logUniform(0.01, 50)),
  epsilon: logUniform(1e-8, 1),
  // 0 means 5 × joints² passes: with 60 bones and the iterative solve that is 18 000 passes a step
  maxPasses: fc.integer({ min: 1, max: 60 }),
  stiffness: logUniform(0.1, 1000),
  capFraction: logUniform(1e-3, 4),
  cap: fc.oneof(fc.constant(0), logUniform(1e-3, 100)),
  limitStiffness: fc.oneof(fc.constant(0), logUniform(0.1, 1000)),
  limitCapDeg: logUniform(0.1, 180),
  limitTolerance: uniform(0, 0.49),
  interpolationSteps: fc.integer({ min: 1, max: 200 }),
  interpolationThresholdDeg: uniform(0, 180),
  interpolationEpsilon: fc.oneof(fc.constant(0), logUniform(1e-12, 1)),
  restSpeed: logUniform(1e-6, 1),
  ikIterations: fc.integer({ min: 1, max: 50 }),
  ikTolerance: logUniform(1e-6, 1),
  dlsLambda: logUniform(1e-4, 10),
  restPull: fc.oneof(fc.constant(0), logUniform(1e-3, 10)),
  gravity: uniform(-1000, 1000),
};

/** Generic sampling for a setting not listed above: within its range, around its default. */
function genericSetting(key: string, def: unknown): fc.Arbitrary<unknown> {
  const values = settingEnums[key];
  if (values) return fc.constantFrom(...values);
  if (typeof def === 'boolean') return fc.boolean();
  if (typeof def !== 'number') return fc.constant(def);
  const r = settingRanges[key] ?? {};
  const lo = r.min ?? -Infinity, hi = r.max ?? Infinity;
  if (r.integer) {
    const min = lo === -Infinity ? 0 : r.exclusiveMin ? lo + 1 : lo;
    return fc.integer({ min, max: Math.min(hi, Math.max(min, 4 * Math.max(def, 2))) });
  }
  if (Number.isFinite(lo) && Number.isFinite(hi)) {
    return uniform(lo, hi).map((x) => (r.exclusiveMin && x <= lo ? (lo + hi) / 2 : x));
  }
  const base = def !== 0 ? Math.abs(def) : 1;
  return logUniform(base / 100, base * 100).map((v) => {
    const x = def < 0 ? -v : v;
    if (x > hi) return hi;
    if (x < lo || (r.exclusiveMin && x <= lo)) return def;
    return x;
  });
}

/** Random settings within their validated ranges, solver 'physik'. */
export const settingsArb: fc.Arbitrary<Partial<Settings>> = fc
  .record(
    Object.fromEntries(
      Object.entries(defaultSettings)
        .filter(([k]) => k !== 'solver')
        .map(([k, def]) => [k, settingSpans[k] ?? genericSetting(k, def)]),
    ) as Record<string, fc.Arbitrary<unknown>>,
  )
  .map((s) => ({ ...s, solver: 'physik' }) as Partial<Settings>)
  .filter((s) => settingsPatchSchema.safeParse(s).success);

/** Settings added by name (or every setting) that the generic sampler made up; for reports. */
export const genericallyFuzzedSettings = (): string[] =>
  Object.keys(defaultSettings).filter((k) => k !== 'solver' && !(k in settingSpans) && !settingEnums[k] && typeof (defaultSettings as unknown as Record<string, unknown>)[k] === 'number');

export function caseArb(opts: CaseOptions = { settings: 'any' }): fc.Arbitrary<FuzzCase> {
  const maxBones = opts.maxBones ?? 60;
  const none = fc.constant({} as Partial<Settings>);
  const settings = opts.settings === 'default' ? none : opts.settings === 'random' ? settingsArb : fc.oneof(none, settingsArb);
  return fc
    .record({
      bones: fc.array(boneSpec(opts), { minLength: 2, maxLength: maxBones, size: 'max' }),
      root: fc.constantFrom('floating' as const, 'pinned' as const),
      points: fc.array(pointSpec, { minLength: 1, maxLength: 5, size: 'max' }),
      settings,
      jumps: fc.array(jump, { minLength: 1, maxLength: 6, size: 'max' }),
    })
    .map(({ bones, root, points, settings, jumps }): FuzzCase => {
      const descs: BoneDescription[] = bones.map((b, i) => {
        const d: BoneDescription = {
          name: `b${i}`,
          parent: i === 0 ? null : `b${i - 1 - Math.floor(b.back * i)}`,
          direction: b.direction,
          roll: b.roll,
          length: b.length,
          ...(b.mass > 0 ? { mass: b.mass } : {}),
        };
        if (i === 0) d.head = [0, 0, 0];
        else {
          if (b.attach !== 1) d.attach = b.attach;
          if (b.limits) d.limits = b.limits;
        }
        return d;
      });
      const controlPoints = points.map((p, i): ControlPointDescription => ({
        name: `cp${i}`,
        bone: `b${Math.floor(p.bone * descs.length)}`,
        at: p.at,
        stiffness: p.stiffness,
        spring: p.spring,
        ...(p.cap !== null ? { cap: p.cap } : {}),
      }));
      return { bones: descs, root, controlPoints, settings, jumps: [...jumps].sort((a, b) => a.at - b.at) };
    });
}

/** The case a seed stands for: the first value of the generator with that seed. */
export function caseForSeed(seed: number, opts: CaseOptions = { settings: 'any' }): FuzzCase {
  return fc.sample(caseArb(opts), { seed, numRuns: 1 })[0]!;
}


/** One line about a case's shape, for reports. */
export function summarizeCase(c: FuzzCase): string {
  const chain = c.bones.every((b, i) => i === 0 || b.parent === `b${i - 1}`);
  const limited = c.bones.filter((b) => b.limits).length;
  const lengths = c.bones.map((b) => b.length);
  const springs = c.controlPoints.map((p) => `${p.spring} k ${p.stiffness}`).join(', ');
  const settings = Object.keys(c.settings).length === 0 ? 'default settings' : 'random settings';
  return `${c.bones.length} bones (${chain ? 'chain' : 'tree'}, lengths ${Math.min(...lengths)}..${Math.max(...lengths)}, ` +
    `${limited} limited), ${c.root} root, control points: ${springs}; ${c.jumps.length} jumps; ${settings}`;
}


/** A case as a compact, copy-pasteable JSON (for reports of counterexamples). */
export function describeCase(c: FuzzCase): string {
  return JSON.stringify(c);
}

