/**
 * Work and memory bounds (src/scene/bounds.ts): a scene or command line that would take hours
 * or run out of memory is refused up front, before anything is built or stepped, with the limit
 * and `--allow-large` named — bones in the world (a 10,000-bone rig with 1,000 copies), bone-steps,
 * the iterative inter-joint solve at its pass cap, recorded frames — by `validate` (file and JSON
 * path, exit 1) and by the commands that would run it (exit 1 for the scene's own numbers, 2 when
 * a flag made them large). Every shipped scene is within them. `--workers` above the CPUs is cut.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { runCli as cli } from '../../support/cli';
import { cpuCount } from '../../../src/cli/batch';
import { loadSceneFile } from '../../../src/scene/loadFile';
import { parseScene } from '../../../src/scene/load';
import { MAX_WORK, MAX_WORLD_BONES, workBounds } from '../../../src/scene/bounds';

const root = join(__dirname, '../../..');
const scenes = join(root, 'scenes');
const tmp = mkdtempSync(join(tmpdir(), 'physik-bounds-'));

/** A scene file: a tree of `n` bones (each bone's parent a quarter of its index down: shallow), `extra` fields over it. */
function tree(name: string, n: number, extra: Record<string, unknown> = {}, chain = false): string {
  const file = join(tmp, `${name}.json`);
  const bones = Array.from({ length: n }, (_, i) => ({ name: `b${i}`, parent: i === 0 ? null : `b${chain ? i - 1 : Math.floor((i - 1) / 4)}`, direction: [0, 1, 0], length: 0.1 }));
  writeFileSync(file, JSON.stringify({ name, rig: { name, bones }, controlPoints: [{ name: 'tip', bone: `b${n - 1}`, target: [0.3, 0.5, 0] }], ...extra }));
  return file;
}

/** The CLI as a process, stopped after `seconds` (the code before these bounds would run for hours). */
function spawnCli(args: string[], seconds = 30) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [join(root, 'bin/physik.mjs'), ...args], { encoding: 'utf8', timeout: seconds * 1000 });
  return { status: r.status, stderr: r.stderr, ms: performance.now() - t0 };
}

describe('bones in the world', () => {
  const huge = tree('crowd-of-giants', 10_000, { crowd: { count: 1000 } });

  it('a 10,000-bone rig with 1,000 copies is refused by run, before anything is built', async () => {
    const p = spawnCli(['run', huge]);
    expect(p.status, p.stderr).toBe(1);
    expect(p.stderr).toContain(`${huge}: crowd.count: expected at most 19 copies of this 10000-bone rig (a world holds at most ${MAX_WORLD_BONES} bones`);
    expect(p.stderr).toContain('--allow-large');
    expect(p.stderr).toContain('got 1000 (10010000 bones)');
    // (record and crosscheck build the scene's rig alone, without its crowd)
    for (const command of ['run', 'validate', 'compare']) {
      const r = await cli([command, huge]);
      expect(r.code, command).toBe(1);
      expect(r.err, command).toContain(`${huge}: crowd.count: expected at most 19 copies`);
    }
  });

  it('--allow-large raises the limit tenfold', async () => {
    const over = tree('crowd-over', 10_000, { crowd: { count: 20 } });
    expect((await cli(['validate', over])).err).toMatch(/crowd\.count: expected at most 19 copies .* got 20 \(210000 bones\)/);
    const r = await cli(['validate', over, '--allow-large']);
    expect(r.code, r.err).toBe(0);
    expect((await cli(['validate', huge, '--allow-large'])).err).toContain('expected at most 199 copies');
  });
});

describe('work', () => {
  it('too many steps for the world: exit 2 when --steps asked for them, exit 1 naming `steps` when the scene did', async () => {
    const big = tree('steps-big', 1000);
    const p = spawnCli(['run', big, '--steps', '10000000']);
    expect(p.status, p.stderr).toBe(2);
    expect(p.stderr).toContain(`${big}: --steps: expected at most 1000000 steps for this 1000-bone world (at most 1e9 bone-steps a command`);
    const inScene = tree('steps-in-scene', 1000, { steps: 2_000_000 });
    const r = await cli(['validate', inScene]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${inScene}: steps: expected at most 1000000 steps for this 1000-bone world`);
    // compare runs the scene twice per solver and finish (a warm-up, then timed): its budget is shared among them
    const many = tree('steps-compare', 1000, { steps: 100_000 });
    expect((await cli(['validate', many])).code).toBe(0);
    const c = await cli(['compare', many]);
    expect(c.code).toBe(1);
    expect(c.err).toMatch(/steps: expected at most 45454 steps for 22 runs of this 1000-bone world/);
  });

  it('the iterative inter-joint solve: its worst case at the pass cap is bounded', async () => {
    // a step of a 300-bone chain may take up to a million joint visits (3344 passes over 299
    // joints; 5 × 299² = 447,005 passes without the per-step bound): 2e9 over 2000 steps
    const chain = tree('iterative-chain', 300, { steps: 2000, settings: { interJoint: 'iterative', epsilon: 1e-300 } }, true);
    const p = spawnCli(['run', chain]);
    expect(p.status, p.stderr).toBe(1);
    expect(p.stderr).toContain(`${chain}: settings.interJoint: expected at most 1e9 joint passes in the worst case`);
    expect(p.stderr).toMatch(/got 2e9: "iterative" may take up to 3344 passes a step \(settings\.maxPasses 0: 5 × joints², at most 1000000 \/ joints\) over 299 joints, for 2000 steps; set settings\.maxPasses to at most 1672/);
    expect((await cli(['validate', chain])).code).toBe(1);
    // a pass cap of its own within the bound: accepted
    const capped = tree('iterative-capped', 300, { steps: 2000, settings: { interJoint: 'iterative', epsilon: 1e-300, maxPasses: 1672 } }, true);
    expect((await cli(['validate', capped])).code).toBe(0);
    // a compared variant that switches to the iterative solve counts too
    const variant = tree('iterative-variant', 300, {
      steps: 2000,
      expect: { compare: [{ name: 'paper', metric: 'maxTargetError', relation: 'less', variant: { settings: { interJoint: 'iterative' } } }] },
    }, true);
    const v = await cli(['validate', variant]);
    expect(v.code).toBe(1);
    expect(v.err).toContain(`${variant}: expect.compare[0].variant.settings.interJoint: expected at most 1e9 joint passes`);
  });

  it('a kinematic solver at its iteration cap every step is bounded', async () => {
    const ik = tree('ik', 5000, { steps: 400, settings: { solver: 'ccd', ikIterations: 1000 } });
    const r = await cli(['validate', ik]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${ik}: settings.ikIterations: expected at most 1e9 bone iterations in the worst case`);
  });
});

describe('recordings', () => {
  it('a million-step record is refused at once, naming the limit and --allow-large', async () => {
    const humanoid = join(scenes, 'humanoid.json');
    const out = join(tmp, 'long.glb');
    const p = spawnCli(['record', humanoid, '--steps', '1000000', '--out', out]);
    expect(p.status, p.stderr).toBe(2);
    expect(p.stderr).toContain(`${humanoid}: --steps: expected at most 2500000 recorded frame-bones`);
    expect(p.stderr).toContain('--allow-large raises it tenfold');
    expect(p.stderr).toContain('got 2.7e7: 1500001 frames (1000000 steps of 0.05 s at 30 fps) of 18 bones');
    // in this process: refused well under a second (parsing the scene included)
    const r = await cli(['record', humanoid, '--steps', '1000000', '--out', out]);
    expect(r.code).toBe(2);
    expect(r.ms).toBeLessThan(1000);
    // --fps, and the default 10 s when the frames come from a scene's tiny dt at a high rate
    const big = tree('record-wide', 1000, { settings: { dt: 0.01 } });
    const fps = await cli(['record', big, '--fps', '1000', '--out', out]);
    expect(fps.code).toBe(2);
    expect(fps.err).toContain(`${big}: --fps: expected at most 2500000 recorded frame-bones`);
    expect(fps.err).toContain('record at most 2.5 s at 1000 fps');
  });
});

describe('bounds as functions', () => {
  it('every shipped scene is within every bound, for every command', () => {
    for (const f of readdirSync(scenes).filter((x) => x.endsWith('.json'))) {
      const scene = loadSceneFile(join(scenes, f));
      for (const command of ['run', 'compare', 'crosscheck', 'record'] as const) expect(workBounds(scene, { command }), `${f} ${command}`).toEqual([]);
    }
  });

  it('name the JSON path or the flag, and say which', () => {
    const bones = Array.from({ length: 2000 }, (_, i) => ({ name: `b${i}`, parent: i ? 'b0' : null, direction: [0, 1, 0], length: 1 }));
    const scene = parseScene({ name: 's', rig: { name: 'r', bones }, steps: MAX_WORK / 2000 });
    expect(workBounds(scene)).toEqual([]);
    expect(workBounds({ ...scene, steps: MAX_WORK / 2000 + 1 }).map((i) => [i.path, i.argument])).toEqual([['steps', false]]);
    expect(workBounds(scene, { steps: MAX_WORK / 2000 + 1 }).map((i) => [i.path, i.argument])).toEqual([['--steps', true]]);
    expect(workBounds({ ...scene, steps: MAX_WORK / 2000 + 1 }, { allowLarge: true })).toEqual([]);
  });
});

describe('--workers', () => {
  it('more workers than CPUs are cut to the CPUs, saying so', async () => {
    const cpus = cpuCount();
    const a = join(scenes, 'elbow.json'), b = join(scenes, 'arm.json');
    if (cpus < 64) {
      const r = await cli(['run', a, b, '--steps', '5', '--workers', String(cpus + 1)]);
      expect(r.code).toBe(0);
      expect(r.err).toBe(`physik: --workers ${cpus + 1} is more than the ${cpus} CPUs of this machine (os.availableParallelism()); using ${cpus}`);
    } else {
      expect((await cli(['run', a, b, '--workers', '65'])).code).toBe(2);
    }
  });
});
