/**
 * The humanoid template on real skeletons: it recognises the CMU walk's bones by their names and
 * RiggedFigure's unnamed joints by the skeleton's shape (the test prints the mapping), limits
 * are saved in the scene file, and a foot dragged forward, up and across bends the knee only
 * within its hinge range, where without the template the leg swings sideways through the knee.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { addRig, createPhysikWorld, readMetrics, setTarget, step } from '../../../src/core';
import { jointRotationVector } from '../../../src/world/jointRotation';
import { parseSceneText } from '../../../src/scene/load';
import { importBvh } from '../../../src/io/bvhImport';
import { importGltf } from '../../../src/io/gltfImport';
import { applyHumanoidTemplate, readBoneName, restPose } from '../../../src/io/humanoid';
import { jointsToRig } from '../../../src/io/skeleton';
import type { RigDescription } from '../../../src/world/types';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/external/${name}`, import.meta.url));
const DEG = 180 / Math.PI;

describe('bone names in the common conventions', () => {
  it.each([
    ['mixamorig:LeftUpLeg', 'upleg', 'left'], ['mixamorig1:RightForeArm', 'forearm', 'right'], ['LeftLeg', 'leg', 'left'],
    ['LHipJoint', 'hipjoint', 'left'], ['lfemur', 'femur', 'left'], ['rhumerus', 'humerus', 'right'],
    ['J_Bip_L_UpperArm', 'upperarm', 'left'], ['J_Bip_C_Hips', 'hips', ''], ['leftLowerLeg', 'lowerleg', 'left'],
    ['thigh_l', 'thigh', 'left'], ['calf_r', 'calf', 'right'], ['spine_01', 'spine01', ''],
    ['DEF-thigh.L', 'thigh', 'left'], ['forearm.R', 'forearm', 'right'], ['upper_arm.L', 'upperarm', 'left'], ['Bip01 L Thigh', 'thigh', 'left'],
  ])('%s → %s (%s)', (name, base, side) => {
    expect(readBoneName(name)).toEqual({ base, side });
  });
});

/** Rest heads of a description by bone name. */
const headsOf = (rig: RigDescription) => {
  const p = restPose(rig);
  return new Map(rig.bones.map((b, i) => [b.name, p.head[i]!]));
};

describe('the template on the fixtures', () => {
  it('recognises the CMU walk by names and RiggedFigure by shape; rolls move no joint', async () => {
    const cmu = importBvh(fixture('cmu_subject02_walk_delfem2.bvh').toString('utf8'), 'walk.bvh', { motion: false, template: 'none' });
    const t = applyHumanoidTemplate(cmu.scene.rig);
    console.log(`CMU walk: ${t.notes.join(' / ')}`);
    expect(t.method).toBe('names');
    expect(t.mapping).toMatchObject({
      hips: 'Hips', leftUpperLeg: 'LeftUpLeg', leftLowerLeg: 'LeftLeg', leftFoot: 'LeftFoot', leftToes: 'LeftToeBase',
      rightUpperLeg: 'RightUpLeg', rightLowerLeg: 'RightLeg', leftShoulder: 'LeftShoulder', leftUpperArm: 'LeftArm',
      leftLowerArm: 'LeftForeArm', leftHand: 'LeftHand', rightLowerArm: 'RightForeArm', head: 'Head',
      spine: ['LowerBack', 'Spine', 'Spine1'], neck: ['Neck', 'Neck1'],
    });
    expect(t.rig.bones.find((b) => b.name === 'LeftLeg')!.limits).toEqual({ x: [0, 150], y: [-10, 10], z: [-5, 5] });
    // fingers and thumbs are not in the template: the anti-folding defaults
    expect(t.defaulted).toEqual(expect.arrayContaining(['LThumb', 'LeftFingerBase', 'LeftHandIndex1']));
    const before = headsOf(cmu.scene.rig), after = headsOf(t.rig);
    for (const [name, h] of before) expect(Math.hypot(...h.map((v, k) => v - after.get(name)![k]!))).toBeLessThan(1e-9);

    const fig = await importGltf(new Uint8Array(fixture('RiggedFigure.glb')), 'RiggedFigure.glb', { template: 'none' });
    const f = applyHumanoidTemplate(fig.scene.rig);
    console.log(`RiggedFigure: ${f.notes.join(' / ')}`);
    expect(f.method).toBe('shape');
    // legs are nodes 3-6 and 7-10, arms 13-15 and 16-18, spine 11-12, neck 19, head 20
    expect(f.mapping).toMatchObject({
      hips: 'node2', spine: ['node11', 'node12'], neck: ['node19'], head: 'node20',
      leftUpperLeg: 'node7', leftLowerLeg: 'node8', leftFoot: 'node9', leftToes: 'node10',
      rightUpperLeg: 'node3', rightLowerLeg: 'node4', rightFoot: 'node5', rightToes: 'node6',
      leftUpperArm: 'node16', leftLowerArm: 'node17', leftHand: 'node18',
      rightUpperArm: 'node13', rightLowerArm: 'node14', rightHand: 'node15',
    });
    expect(f.templated).toHaveLength(18); // every joint but the root
    // the limits go into the scene file and come back from it
    const saved = JSON.stringify({ ...fig.scene, rig: f.rig });
    expect(parseSceneText(saved, 'figure.json').rig.bones.find((b) => b.name === 'node8')!.limits).toEqual({ x: [0, 150], y: [-10, 10], z: [-5, 5] });
  });

  it('a mapping given by the user overrides the recognised one; an unknown bone is named in the error', () => {
    const cmu = importBvh(fixture('cmu_subject02_walk_delfem2.bvh').toString('utf8'), 'walk.bvh', { motion: false, template: 'none' });
    const t = applyHumanoidTemplate(cmu.scene.rig, { mapping: { leftHand: 'LeftFingerBase' } });
    expect(t.mapping.leftHand).toBe('LeftFingerBase');
    expect(() => applyHumanoidTemplate(cmu.scene.rig, { mapping: { leftHand: 'Paw' } })).toThrow('humanoid mapping: leftHand: no bone named "Paw" in rig "walk"');
  });
});

/**
 * Drag the CMU walk's left foot (hips held) forward, up and across by a third of the figure's
 * height for 400 steps; return the knee's extreme joint angles (degrees) and the final metrics.
 */
function dragFoot(rig: RigDescription) {
  const world = createPhysikWorld();
  const h = addRig(world, {
    rig,
    controlPoints: [{ name: 'foot', bone: 'LeftFoot', at: 0 }, { name: 'hips', bone: 'Hips', at: 0 }, { name: 'chest', bone: 'Spine1', at: 1 }],
  });
  const { Bone } = world.physik;
  const height = readMetrics(world, h.rig).height;
  const foot = h.bones.LeftFoot!;
  const at = [Bone.head[foot * 3]!, Bone.head[foot * 3 + 1]!, Bone.head[foot * 3 + 2]!];
  setTarget(world, h.controlPoints.foot!, [at[0]! - 0.25 * height, at[1]! + 0.3 * height, at[2]! + 0.2 * height]);
  const knee = h.bones.LeftLeg!;
  const v = new Float64Array(3);
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  for (let s = 0; s < 400; s++) {
    step(world, 1);
    jointRotationVector(world, knee, v);
    for (let k = 0; k < 3; k++) { lo[k] = Math.min(lo[k]!, v[k]! * DEG); hi[k] = Math.max(hi[k]!, v[k]! * DEG); }
  }
  return { lo, hi, metrics: readMetrics(world, h.rig), finite: Array.from(Bone.rot).every(Number.isFinite) };
}

describe('a dragged foot bends the knee only within its range', () => {
  it('the CMU walk with the template: the knee hinges, 0 to 150 degrees, barely twisting or swinging sideways', () => {
    const { scene } = importBvh(fixture('cmu_subject02_walk_delfem2.bvh').toString('utf8'), 'walk.bvh', { motion: false, template: 'none' });
    const free = dragFoot(scene.rig);
    const limited = dragFoot(applyHumanoidTemplate(scene.rig).rig);
    const show = (r: ReturnType<typeof dragFoot>) => [0, 1, 2].map((k) => `${'xyz'[k]} ${r.lo[k]!.toFixed(1)}..${r.hi[k]!.toFixed(1)}`).join(', ');
    console.log(`knee angles (deg): free ${show(free)}; templated ${show(limited)}; largest limit violation at the end ${limited.metrics.maxLimitViolationDeg.toFixed(2)} deg`);
    expect(limited.finite).toBe(true);
    // within the hinge's range, up to the torsion springs' give (a few degrees under a hard pull)
    const give = 3;
    expect(limited.lo[0]!).toBeGreaterThan(0 - give);
    expect(limited.hi[0]!).toBeLessThan(150 + give);
    expect(limited.hi[0]!).toBeGreaterThan(20); // it does bend
    for (const k of [1, 2]) {
      const range = k === 1 ? 10 : 5;
      expect(limited.lo[k]!).toBeGreaterThan(-range - give);
      expect(limited.hi[k]!).toBeLessThan(range + give);
    }
    // without limits the same drag turns the knee about other axes far beyond that
    expect(Math.max(-free.lo[1]!, free.hi[1]!, -free.lo[2]!, free.hi[2]!)).toBeGreaterThan(20);
  });
});

describe('imports apply the template', () => {
  it("by default, with its notes among the import's; template: 'none' leaves the joints free", async () => {
    const src = fixture('cmu_subject02_walk_delfem2.bvh').toString('utf8');
    const r = importBvh(src, 'walk.bvh', { motion: false });
    expect(r.humanoid).toMatchObject({ method: 'names', mapping: { leftLowerLeg: 'LeftLeg' } });
    expect(r.scene.rig.bones.find((b) => b.name === 'LeftLeg')!.limits).toEqual({ x: [0, 150], y: [-10, 10], z: [-5, 5] });
    expect(r.warnings.some((w) => w.startsWith('humanoid recognised by bone names (24 bones limited)'))).toBe(true);
    const raw = importBvh(src, 'walk.bvh', { motion: false, template: 'none' });
    expect(raw.humanoid).toBeUndefined();
    expect(raw.scene.rig.bones.every((b) => b.limits === undefined)).toBe(true);
    const fig = await importGltf(new Uint8Array(fixture('RiggedFigure.glb')), 'RiggedFigure.glb');
    expect(fig.humanoid?.method).toBe('shape');
    expect(fig.humanoid?.templated).toHaveLength(18);
  });
});

describe('the naming conventions, on one skeleton', () => {
  // a T-posed figure: [role, parent role, position]
  const figure: [string, string | null, [number, number, number]][] = [
    ['hips', null, [0, 1, 0]], ['spine', 'hips', [0, 1.1, 0]], ['chest', 'spine', [0, 1.3, 0]], ['neck', 'chest', [0, 1.5, 0]], ['head', 'neck', [0, 1.6, 0]],
    ['lclav', 'chest', [0.05, 1.45, 0]], ['luparm', 'lclav', [0.18, 1.45, 0]], ['lforearm', 'luparm', [0.46, 1.45, 0]], ['lhand', 'lforearm', [0.72, 1.45, 0]],
    ['rclav', 'chest', [-0.05, 1.45, 0]], ['ruparm', 'rclav', [-0.18, 1.45, 0]], ['rforearm', 'ruparm', [-0.46, 1.45, 0]], ['rhand', 'rforearm', [-0.72, 1.45, 0]],
    ['lthigh', 'hips', [0.1, 0.95, 0]], ['lshin', 'lthigh', [0.1, 0.5, 0]], ['lfoot', 'lshin', [0.1, 0.08, 0]], ['ltoe', 'lfoot', [0.1, 0, 0.12]],
    ['rthigh', 'hips', [-0.1, 0.95, 0]], ['rshin', 'rthigh', [-0.1, 0.5, 0]], ['rfoot', 'rshin', [-0.1, 0.08, 0]], ['rtoe', 'rfoot', [-0.1, 0, 0.12]],
  ];
  const roles = figure.map(([r]) => r);
  const conventions: Record<string, string[]> = {
    Mixamo: ['Hips', 'Spine', 'Spine1', 'Neck', 'Head', 'LeftShoulder', 'LeftArm', 'LeftForeArm', 'LeftHand', 'RightShoulder', 'RightArm', 'RightForeArm', 'RightHand', 'LeftUpLeg', 'LeftLeg', 'LeftFoot', 'LeftToeBase', 'RightUpLeg', 'RightLeg', 'RightFoot', 'RightToeBase'].map((n) => `mixamorig:${n}`),
    CMU: ['hips', 'lowerback', 'thorax', 'lowerneck', 'head', 'lclavicle', 'lhumerus', 'lradius', 'lwrist', 'rclavicle', 'rhumerus', 'rradius', 'rwrist', 'lfemur', 'ltibia', 'lfoot', 'ltoes', 'rfemur', 'rtibia', 'rfoot', 'rtoes'],
    VRM: ['J_Bip_C_Hips', 'J_Bip_C_Spine', 'J_Bip_C_Chest', 'J_Bip_C_Neck', 'J_Bip_C_Head', 'J_Bip_L_Shoulder', 'J_Bip_L_UpperArm', 'J_Bip_L_LowerArm', 'J_Bip_L_Hand', 'J_Bip_R_Shoulder', 'J_Bip_R_UpperArm', 'J_Bip_R_LowerArm', 'J_Bip_R_Hand', 'J_Bip_L_UpperLeg', 'J_Bip_L_LowerLeg', 'J_Bip_L_Foot', 'J_Bip_L_ToeBase', 'J_Bip_R_UpperLeg', 'J_Bip_R_LowerLeg', 'J_Bip_R_Foot', 'J_Bip_R_ToeBase'],
    'VRM humanoid': ['hips', 'spine', 'chest', 'neck', 'head', 'leftShoulder', 'leftUpperArm', 'leftLowerArm', 'leftHand', 'rightShoulder', 'rightUpperArm', 'rightLowerArm', 'rightHand', 'leftUpperLeg', 'leftLowerLeg', 'leftFoot', 'leftToes', 'rightUpperLeg', 'rightLowerLeg', 'rightFoot', 'rightToes'],
    Unreal: ['pelvis', 'spine_01', 'spine_02', 'neck_01', 'head', 'clavicle_l', 'upperarm_l', 'lowerarm_l', 'hand_l', 'clavicle_r', 'upperarm_r', 'lowerarm_r', 'hand_r', 'thigh_l', 'calf_l', 'foot_l', 'ball_l', 'thigh_r', 'calf_r', 'foot_r', 'ball_r'],
    Rigify: ['spine', 'spine.001', 'spine.002', 'spine.004', 'spine.006', 'shoulder.L', 'upper_arm.L', 'forearm.L', 'hand.L', 'shoulder.R', 'upper_arm.R', 'forearm.R', 'hand.R', 'thigh.L', 'shin.L', 'foot.L', 'toe.L', 'thigh.R', 'shin.R', 'foot.R', 'toe.R'].map((n) => `DEF-${n}`),
  };
  it.each(Object.keys(conventions))('%s names: knees, elbows and the rest mapped by name', (convention) => {
    const names = conventions[convention]!;
    const joints = figure.map(([, parent, position], i) => ({ name: names[i]!, parent: parent === null ? -1 : roles.indexOf(parent), position }));
    const { rig } = jointsToRig(joints);
    const t = applyHumanoidTemplate(rig);
    const byRole = Object.fromEntries(roles.map((r, i) => [r, names[i]!]));
    // (Rigify has no bone named hips: its pelvis, "spine", the thighs' common parent, takes the role)
    expect(t.method).toBe('names');
    expect(t.mapping).toMatchObject({
      leftUpperLeg: byRole.lthigh, leftLowerLeg: byRole.lshin, leftFoot: byRole.lfoot, rightLowerLeg: byRole.rshin,
      leftUpperArm: byRole.luparm, leftLowerArm: byRole.lforearm, leftHand: byRole.lhand, rightLowerArm: byRole.rforearm,
    });
    for (const hinge of [byRole.lshin, byRole.rshin, byRole.lforearm, byRole.rforearm]) expect(t.rig.bones.find((b) => b.name === hinge)!.limits!.x).toEqual([0, 150]);
  });
});
