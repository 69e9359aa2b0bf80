/**
 * A joint's role in the humanoid template changed after the import (the sandbox's joint panel):
 * the role a bone has, a role moved to another bone, and the template's limits of a role in the
 * bone's own frame as it was built: the same limits the import gave for the role it had, a
 * knee given an elbow's role mirrored to bend the elbow's way round in its knee's frame, the
 * defaults with no role, and the way the figure faces (the sandbox's front view).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importBvh } from '../../../src/io/bvhImport';
import { importGltf } from '../../../src/io/gltfImport';
import { DEFAULT_LIMITS, facingOf, restPose, roleLimits, roleOf, TEMPLATE_ROLES, withRole } from '../../../src/io/humanoid';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/external/${name}`, import.meta.url));

describe('roles of the humanoid template after the import', () => {
  it('each templated bone of the CMU walk and of RiggedFigure gets back the limits the import gave it', async () => {
    const cmu = importBvh(fixture('cmu_subject02_walk_delfem2.bvh').toString('utf8'), 'walk.bvh');
    const fig = await importGltf(new Uint8Array(fixture('RiggedFigure.glb')), 'RiggedFigure.glb');
    for (const r of [cmu, fig]) {
      const rig = r.scene.rig, mapping = r.humanoid!.mapping;
      let checked = 0;
      for (const b of rig.bones) {
        const role = roleOf(mapping, b.name);
        if (!role || !r.humanoid!.templated.includes(b.name)) continue;
        expect(roleLimits(rig, mapping, b.name, role), `${b.name} as ${role}`).toEqual(b.limits);
        checked++;
      }
      expect(checked).toBeGreaterThan(10);
    }
  });

  it('a knee made an elbow bends the elbow way (mirrored in its frame); no role gives the defaults', () => {
    const cmu = importBvh(fixture('cmu_subject02_walk_delfem2.bvh').toString('utf8'), 'walk.bvh');
    const rig = cmu.scene.rig, mapping = cmu.humanoid!.mapping;
    const knee = mapping.leftLowerLeg!;
    expect(roleOf(mapping, knee)).toBe('leftLowerLeg');
    // the knee was rolled to bend backward; an elbow bends forward: half a turn about the bone
    expect(roleLimits(rig, mapping, knee, 'leftLowerArm')).toEqual({ x: [-150, 0], y: [-80, 80], z: [-5, 5] });
    expect(roleLimits(rig, mapping, knee, null)).toEqual(DEFAULT_LIMITS);
    expect(roleLimits(rig, mapping, mapping.leftUpperLeg!, 'leftHipJoint')).toEqual({ x: [0, 0], y: [0, 0], z: [0, 0] });
    expect(() => roleLimits(rig, mapping, 'nope', 'head')).toThrow(/no bone named "nope"/);
  });

  it('withRole moves a single role, adds to the spine, clears; the mapping given is not changed', () => {
    const cmu = importBvh(fixture('cmu_subject02_walk_delfem2.bvh').toString('utf8'), 'walk.bvh');
    const mapping = cmu.humanoid!.mapping;
    const knee = mapping.leftLowerLeg!, thigh = mapping.leftUpperLeg!;
    const moved = withRole(mapping, thigh, 'leftLowerLeg');
    expect(moved.leftLowerLeg).toBe(thigh);
    expect(moved.leftUpperLeg).toBeUndefined();
    expect(roleOf(moved, knee)).toBeNull();
    expect(mapping.leftLowerLeg).toBe(knee);
    const spined = withRole(mapping, knee, 'spine');
    expect(spined.spine).toEqual([...mapping.spine, knee]);
    expect(roleOf(spined, knee)).toBe('spine');
    expect(roleOf(withRole(spined, knee, null), knee)).toBeNull();
    expect(TEMPLATE_ROLES).toContain('leftHand');
  });

  it('the way a figure faces: horizontal, with its left hand on its left (RiggedFigure: +Z, as glTF has it)', async () => {
    const cmu = importBvh(fixture('cmu_subject02_walk_delfem2.bvh').toString('utf8'), 'walk.bvh');
    const fig = await importGltf(new Uint8Array(fixture('RiggedFigure.glb')), 'RiggedFigure.glb');
    for (const r of [cmu, fig]) {
      const rig = r.scene.rig, m = r.humanoid!.mapping;
      const f = facingOf(rig, m)!;
      expect(f[1]).toBe(0);
      expect(Math.hypot(...f)).toBeCloseTo(1, 12);
      const pose = restPose(rig), at = (b: string) => pose.tail[rig.bones.findIndex((x) => x.name === b)]!;
      const l = at(m.leftHand!), rr = at(m.rightHand!);
      // left = up × facing = (f.z, 0, −f.x)
      expect((l[0] - rr[0]) * f[2] - (l[2] - rr[2]) * f[0]).toBeGreaterThan(0);
    }
    const f = facingOf(fig.scene.rig, fig.humanoid!.mapping)!;
    expect(f[2]).toBeGreaterThan(0.99);
    expect(facingOf(cmu.scene.rig, { spine: [], neck: [] })).toBeNull();
  });
});
