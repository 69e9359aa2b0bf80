/**
 * Rapier as an independent physics cross-check: on scenes whose targets are reachable and
 * whose limits are not pressed, PhysIK and the Rapier mirror come to rest in the same pose
 * (every bone tip within 2% of the rig's height), both at rest, both finite.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { loadSceneFile } from '../../../src/scene/loadFile';
import { runCrosscheck, type CrosscheckResult } from '../../../src/rapier';

const scenes = join(__dirname, '../../../scenes');
const scene = (name: string) => loadSceneFile(join(scenes, `${name}.json`));

function expectAgreement(r: CrosscheckResult, within = 0.02): void {
  expect(r.physikFinite).toBe(true);
  expect(r.rapierFinite).toBe(true);
  expect(r.rapierError).toBeUndefined();
  expect(r.normalizedMaxDistance, `worst bone ${JSON.stringify(r.perBone.reduce((a, b) => (b.tipDistance > a.tipDistance ? b : a)))}`).toBeLessThan(within);
  expect(r.normalizedMeanDistance).toBeLessThanOrEqual(r.normalizedMaxDistance);
  // both come to rest, and within a tenth of the run of each other
  expect(r.physikRestStep).not.toBeNull();
  expect(r.rapierRestStep).not.toBeNull();
  expect(Math.abs(r.physikRestStep! - r.rapierRestStep!)).toBeLessThan(0.1 * r.steps);
}

describe('PhysIK and Rapier (impulse joints) reach the same equilibrium', () => {
  for (const name of ['chain', 'arm', 'humanoid']) {
    it(`${name}: every bone tip within 2% of the height`, async () => {
      const r = await runCrosscheck(scene(name));
      expect(r.jointModel).toBe('impulse');
      expect(r.steps).toBe(scene(name).steps);
      expect(r.perBone).toHaveLength(scene(name).rig.bones.length);
      expectAgreement(r);
    });
  }

  it('the humanoid is mirrored with every joint kind: fixed, revolute with Rapier limits, spherical with emulated ones', async () => {
    const r = await runCrosscheck(scene('humanoid'), { steps: 1 });
    const of = (bone: string) => r.perBone.find((b) => b.bone === bone)!;
    expect(of('torso').joint).toBe('floating root');
    expect(of('collarbone.R').joint).toBe('fixed');
    expect(of('forearm.R')).toMatchObject({ joint: 'revolute', enforced: ['x', 'y', 'z'], emulated: [] });
    expect(of('hand.R')).toMatchObject({ joint: 'spherical', emulated: ['x', 'y', 'z'] });
    expect(of('upperArm.R')).toMatchObject({ joint: 'spherical', emulated: [] });
    expect(r.joints).toMatch(/4 fixed.*4 revolute|4 revolute.*4 fixed/);
  });

  it('is deterministic: two runs give the same distances bit for bit', async () => {
    const a = await runCrosscheck(scene('chain'), { steps: 120 });
    const b = await runCrosscheck(scene('chain'), { steps: 120 });
    expect(b.perBone.map((x) => x.tipDistance)).toEqual(a.perBone.map((x) => x.tipDistance));
    expect(a.maxTipDistance).toBeGreaterThan(0); // the two engines are not the same code
  });
});

describe('multibody joints, where they work', () => {
  it('humanoid: within 2% of the height too (revolute limits emulated there)', async () => {
    const r = await runCrosscheck(scene('humanoid'), { jointModel: 'multibody' });
    expect(r.jointModel).toBe('multibody');
    expect(r.perBone.find((b) => b.bone === 'forearm.R')).toMatchObject({ joint: 'revolute', emulated: ['x'] });
    expectAgreement(r);
  });
});
