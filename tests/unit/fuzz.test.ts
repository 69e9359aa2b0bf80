/**
 * A short property run over random rigs (tests/fuzz/rigs.ts; the long run is `npm run fuzz`).
 * Fixed seeds: seed s of a family is the case `caseForSeed(s, { settings })`, so a failing seed
 * reruns alone with `npm run fuzz -- --settings default --from s --seeds 1 --steps 300` (which
 * also shrinks it). Two families: the default settings, and random settings from the validated
 * ranges. Properties, checked after every step:
 * - no NaN or infinity in any floating-point field of the rig's entities in any store;
 * - joints connected (gap <= 1e-9 relative), bone lengths kept, unit quaternions, a pinned root
 *   on its pin (BOUNDS in tests/fuzz/rigs.ts);
 * - determinism: the same case twice in fresh worlds gives bit-identical stores and trajectory;
 * - default settings only: the limit violation in the final pose, beyond what the joint's own
 *   limits force, is at most BOUNDS.limitFinalDeg (random settings may switch limits off).
 */
import { describe, expect, it } from 'vitest';
import { BOUNDS, determinismFailure, limitFailure, runCase, structuralFailure, type CaseResult } from '../fuzz/rigs';
import { caseForSeed, describeCase, summarizeCase, type CaseOptions, type FuzzCase } from '../fuzz/cases';

const CASES = 40;
const STEPS = 300;

interface Outcome { seed: number; c: FuzzCase; r: CaseResult; structural: string | null; limits: string | null; determinism: string | null }

/** Runs each seed's case twice (the second run for determinism), memoized per family. */
function family(settings: CaseOptions['settings'], firstSeed: number): () => Outcome[] {
  let outcomes: Outcome[] | null = null;
  return () => {
    outcomes ??= Array.from({ length: CASES }, (_, i) => {
      const seed = firstSeed + i;
      const c = caseForSeed(seed, { settings });
      const r = runCase(c, STEPS);
      return { seed, c, r, structural: structuralFailure(c, r), limits: limitFailure(c, r), determinism: determinismFailure(c, STEPS, r) };
    });
    return outcomes;
  };
}

/** A readable report of the seeds failing one property (empty when none fails). */
function report(outcomes: Outcome[], key: 'structural' | 'limits' | 'determinism', settings: string): string[] {
  const failing = outcomes.filter((o) => o[key]);
  if (failing.length === 0) return [];
  const first = failing[0]!;
  return [
    `${failing.length} of ${outcomes.length} cases fail (${settings} settings, ${STEPS} steps); seeds ${failing.map((o) => o.seed).join(', ')}`,
    ...failing.slice(0, 5).map((o) => `seed ${o.seed}: ${o[key]} — ${summarizeCase(o.c)}`),
    `rerun and shrink: npm run fuzz -- --settings ${settings} --from ${first.seed} --seeds 1 --steps ${STEPS}`,
    `first case: ${describeCase(first.c)}`,
  ];
}

describe('fuzz: random rigs, far target jumps', () => {
  for (const [settings, firstSeed] of [['default', 1000], ['random', 2000]] as const) {
    const outcomes = family(settings, firstSeed);
    describe(`${settings} settings (${CASES} cases × ${STEPS} steps)`, () => {
      it('no NaN anywhere; joints connected, lengths kept, unit quaternions, pins held', () => {
        expect(report(outcomes(), 'structural', settings)).toEqual([]);
      });
      it('the same case twice gives bit-identical worlds', () => {
        expect(report(outcomes(), 'determinism', settings)).toEqual([]);
      });
      if (settings === 'default') {
        // Known weakness: rigs of bones far lighter and shorter than their
        // neighbours, pulled far, can churn against their limits faster than substeps can follow
        // (docs/robustness.md has how many in the long run); the guard then clamps their speeds
        // (systems/substepRetry.ts) and they keep moving, with violations the clamp does not
        // bound. The limit property is asserted on the rigs that needed no clamp in the last
        // quarter of the run (most of the 40 here).
        it(`limits: a rig settled at the end holds them within ${BOUNDS.limitFinalDeg}°; of those still moving, at most one in ten beyond it and none beyond 3× (rigs not speed-clamped at the end)`, () => {
          const running = outcomes().filter((o) => o.r.divergedTail === 0 && o.r.clampedTail === 0);
          expect(running.length).toBeGreaterThan(0);
          const settled = running.filter((o) => o.r.settled);
          // (docs/robustness.md has how many settle by step 300)
          expect(settled.length).toBeGreaterThanOrEqual(Math.floor(running.length / 4));
          expect(report(settled, 'limits', settings)).toEqual([]);
          // rigs still churning at the end, as a few do beyond the bound in the long run too
          // (rigs.ts BOUNDS.limitFinalDeg): here a light or tiny bone among heavy or long ones
          // (docs/robustness.md has the seeds and how far past)
          const moving = running.filter((o) => !o.r.settled);
          const over = moving.filter((o) => o.r.finalExcessDeg > BOUNDS.limitFinalDeg);
          expect(over.length, report(moving, 'limits', settings).join('\n')).toBeLessThanOrEqual(Math.floor(running.length / 10));
          expect(moving.filter((o) => o.r.finalExcessDeg > 3 * BOUNDS.limitFinalDeg).map((o) => o.seed)).toEqual([]);
        });
      }
    });
  }
});
