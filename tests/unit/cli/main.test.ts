/** The command line: JSON output fields, validation exit codes and messages. */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli as capture } from '../../support/cli';

const scenes = join(__dirname, '../../../scenes');
const tmp = mkdtempSync(join(tmpdir(), 'physik-cli-'));
function sceneFile(name: string, data: unknown): string {
  const f = join(tmp, name);
  writeFileSync(f, typeof data === 'string' ? data : JSON.stringify(data));
  return f;
}
const bone = (name: string, parent: string | null, extra = {}) => ({ name, parent, direction: [0, 1, 0], length: 1, ...extra });

describe('physik run --json', () => {
  it('prints one JSON object with the documented fields and a finite pose', async () => {
    const r = (await capture(['run', join(scenes, 'humanoid.json'), '--json']));
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    for (const key of ['scene', 'solver', 'steps', 'converged', 'stepsToConverge', 'maxTargetError', 'meanTargetError',
      'maxJointGap', 'maxLimitViolationDeg', 'kineticEnergy', 'passesPerStep', 'msPerStep', 'msPerStepSteady', 'finite', 'pose']) {
      expect(j, key).toHaveProperty(key);
    }
    // wall times: positive, and the last 100 steps' mean no more than 100/600 of the run's total
    expect(j.msPerStepSteady).toBeGreaterThan(0);
    expect(j.msPerStepSteady * 100).toBeLessThanOrEqual(j.msPerStep * j.steps * (1 + 1e-9));
    expect(j.finite).toBe(true);
    expect(j.solver).toBe('physik');
    expect(Object.keys(j.pose)).toHaveLength(18);
    expect(j.pose['hand.R'].local).toHaveLength(4);
    expect(j.passesPerStep.mean).toBeGreaterThan(0);
  });

  it('honours --steps', async () => {
    const j = JSON.parse((await capture(['run', join(scenes, 'elbow.json'), '--steps', '7', '--json'])).out);
    expect(j.steps).toBe(7);
  });
});

describe('physik run --solver and compare', () => {
  it('runs a scene under a kinematic solver with the same JSON fields plus iterations and time per solve', async () => {
    const j = JSON.parse((await capture(['run', join(scenes, 'arm.json'), '--solver', 'ccd', '--json'])).out);
    expect(j.solver).toBe('ccd');
    expect(j.finite).toBe(true);
    for (const key of ['pose', 'maxTargetError', 'maxLimitViolationDeg', 'iterations', 'msPerSolve', 'status']) expect(j, key).toHaveProperty(key);
    expect(j.maxTargetError).toBeLessThan(0.01);
  });

  it('refuses an unknown solver, listing the known ones', async () => {
    const r = (await capture(['run', join(scenes, 'arm.json'), '--solver', 'magic']));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/fabrik/);
  });

  it('compare gives one row per solver, with a reason where a solver cannot serve the rig', async () => {
    const j = JSON.parse((await capture(['compare', join(scenes, 'elbow.json'), '--steps', '50', '--json'])).out);
    const names = j.solvers.map((r: { solver: string }) => r.solver);
    for (const s of ['physik', 'fabrik', 'ccd', 'dls', 'twoBone']) expect(names).toContain(s);
    for (const row of j.solvers) {
      if (row.error) expect(row.error).toMatch(/elbow/);
      else expect(row.finite).toBe(true);
    }
    const text = (await capture(['compare', join(scenes, 'elbow.json'), '--steps', '20'])).out;
    expect(text).toMatch(/target error/);
  });
});

describe('physik validate', () => {
  it('accepts every shipped scene', async () => {
    for (const s of ['elbow', 'humanoid', 'running-pose', 'cannon', 'arm-raise', 'sit']) {
      expect((await capture(['validate', join(scenes, `${s}.json`)])).code).toBe(0);
    }
  });

  const cases: [string, unknown, RegExp[]][] = [
    ['unknown parent', { name: 'x', rig: { name: 'r', bones: [bone('a', null), bone('b', 'nope')] } }, [/rig\.bones\[1\]\.parent/, /unknown bone "nope"/]],
    ['cycle', { name: 'x', rig: { name: 'r', bones: [bone('root', null), bone('a', 'b'), bone('b', 'a')] } }, [/cycle/]],
    ['negative mass', { name: 'x', rig: { name: 'r', bones: [bone('a', null, { mass: -2 })] } }, [/rig\.bones\[0\]\.mass/, /-2/]],
    ['NaN target', '{"name":"x","rig":{"name":"r","bones":[{"name":"a","parent":null,"direction":[0,1,0],"length":1}]},"controlPoints":[{"name":"c","bone":"a","target":[NaN,0,0]}]}', [/NaN/, /line 1/]],
    ['missing field', { name: 'x', rig: { name: 'r', bones: [{ name: 'a', parent: null, direction: [0, 1, 0] }] } }, [/rig\.bones\[0\]\.length/, /missing/]],
  ];
  for (const [what, data, patterns] of cases) {
    it(`refuses a scene with ${what}: exit 1, message names file and path`, async () => {
      const f = sceneFile(`${what.replace(/\s/g, '-')}.json`, data);
      for (const cmd of ['validate', 'run']) {
        const r = (await capture([cmd, f]));
        expect(r.code).toBe(1);
        expect(r.err).toContain(f);
        for (const p of patterns) expect(r.err).toMatch(p);
        expect(r.err).not.toMatch(/\n\s+at /); // no stack trace
      }
    });
  }

  it('refuses bad arguments with usage (exit 2)', async () => {
    expect((await capture([])).code).toBe(2);
    expect((await capture(['fly', 'x.json'])).code).toBe(2);
    const r = (await capture(['run', join(scenes, 'elbow.json'), '--steps', '-3']));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--steps/);
  });

  it('reports a missing file', async () => {
    const r = (await capture(['validate', join(tmp, 'absent.json')]));
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/not found/);
  });
});
