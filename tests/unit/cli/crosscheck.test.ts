/** `physik crosscheck`: the JSON fields, the table, and exit codes for bad arguments and scenes. */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli as capture } from '../../support/cli';

const scenes = join(__dirname, '../../../scenes');

describe('physik crosscheck', () => {
  it('--json prints one object with the distances, rest steps, timings and per-bone rows', async () => {
    const r = await capture(['crosscheck', join(scenes, 'arm.json'), '--json', '--steps', '300']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    for (const key of ['maxTipDistance', 'meanTipDistance', 'normalizedMaxDistance', 'physikMsPerStep', 'rapierMsPerStep', 'jointModel', 'perBone',
      'physikRestStep', 'rapierRestStep', 'steps', 'height']) expect(j, key).toHaveProperty(key);
    expect(j.jointModel).toBe('impulse');
    expect(j.steps).toBe(300);
    expect(j.perBone.map((b: { bone: string }) => b.bone)).toEqual(['upper', 'forearm']);
    expect(j.normalizedMaxDistance).toBeCloseTo(j.maxTipDistance / j.height, 12);
    expect(j.normalizedMaxDistance).toBeLessThan(0.02); // at rest after the first move
    expect(j.physikMsPerStep).toBeGreaterThan(0);
    expect(j.rapierMsPerStep).toBeGreaterThan(0);
  });

  it('prints a table per bone and the summary lines, and takes --joints multibody', async () => {
    const r = await capture(['crosscheck', join(scenes, 'arm.json'), '--steps', '50', '--joints', 'multibody']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/Rapier multibody joints/);
    expect(r.out).toMatch(/^\s+forearm\s+revolute/m);
    expect(r.out).toMatch(/tip distance\s+max/);
    expect(r.out).toMatch(/time per step\s+PhysIK .* us, Rapier .* us/);
  });

  it('exits 2 with a message on bad arguments', async () => {
    for (const [argv, message] of [
      [['crosscheck'], /missing <scene.json>/],
      [['crosscheck', join(scenes, 'arm.json'), '--joints', 'ragdoll'], /--joints expects impulse or multibody, got "ragdoll"/],
      [['crosscheck', join(scenes, 'arm.json'), '--steps', '-3'], /--steps expects a non-negative integer/],
      [['crosscheck', join(scenes, 'arm.json'), '--fast'], /unknown option "--fast"/],
    ] as const) {
      const r = await capture([...argv]);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err).toMatch(message);
    }
  });

  it('exits 1 naming the file and the JSON path on a bad scene', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'physik-crosscheck-'));
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ name: 'bad', rig: { name: 'r', bones: [{ name: 'a', parent: null, direction: [0, 1, 0], length: -1 }] }, steps: 10 }));
    const r = await capture(['crosscheck', file]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/bad\.json/);
    expect(r.err).toMatch(/rig\.bones\[0\]\.length/);
    expect((await capture(['crosscheck', join(dir, 'missing.json')])).code).toBe(1);
  });

  it('is listed in the help, and explains itself', async () => {
    const r = await capture(['--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^ {2}crosscheck +PhysIK against a Rapier mirror/m);
    const own = await capture(['crosscheck', '--help']);
    expect(own.code).toBe(0);
    expect(own.out).toMatch(/usage: physik crosscheck <scene.json> \| --dynamics \[--json\] \[--steps N\] \[--joints impulse\|multibody\] \[--dynamics\]/);
    expect(own.out).toMatch(/--joints impulse\|multibody +Rapier's joint model \(default: impulse\)/);
    expect(own.out).toMatch(/@dimforge\/rapier3d-compat/);
  });
});
