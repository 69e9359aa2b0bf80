/**
 * Hinge joints (systems/hinges.ts): a joint locked at 0° on two axes turns about the third only,
 * exactly. What a user sees: the humanoid's knees and elbows stay in their plane at every step
 * of a reach; a spun free rig with hinges keeps its momentum and gains no energy (the hinge's
 * torques are internal and do no work); in a planar motion a hinge moves exactly as a ball joint
 * does (nothing pushes out of the plane, so the hinge has nothing to hold); and a joint made a
 * hinge by editing its limits holds at once. The accurate form of the solve, taken on the steps
 * the fast form gets wrong, holds welds and hinges too.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { addRig, createPhysikWorld, readPose, setJointLimits, step, type PhysikWorld } from '../../../src/core';
import type { BoneDescription, RigDescription, Settings } from '../../../src/scene/types';
import { jointRotationVector } from '../../../src/world/jointRotation';
import { rng } from '../../support/helpers';
import { measure } from '../../support/momentum';
import { coupledSolveForm } from '../../../systems/interJointSolve';
import { humanoidReach } from '../../support/humanoidWorld';

const DEG = 180 / Math.PI;
const phi = new Float64Array(3);

/** The largest angle (degrees) on a locked axis (the joint frame's y and z) of `bones` now. */
function lockedAngle(world: PhysikWorld, bones: number[]): number {
  let worst = 0;
  for (const b of bones) {
    jointRotationVector(world, b, phi);
    worst = Math.max(worst, Math.abs(phi[1]!) * DEG, Math.abs(phi[2]!) * DEG);
  }
  return worst;
}

const isHinge = (b: BoneDescription) => {
  const l = b.limits;
  return !!l && Array.isArray(l.y) && l.y[0] === 0 && l.y[1] === 0 && Array.isArray(l.z) && l.z[0] === 0 && l.z[1] === 0 && !(Array.isArray(l.x) && l.x[0] === l.x[1]);
};

/** The humanoid scene's reach with `settings`: the largest locked-axis angle of its knees and elbows at any step, and the reach's error. */
function hingesOnReach(settings: Partial<Settings>): { worst: number; error: number } {
  const r = humanoidReach(settings, isHinge, (world, b) => lockedAngle(world, [b]));
  expect(r.bones).toBe(4); // forearms and shins
  return r;
}

/** A floating zig-zag chain of n bones, every joint after the first a hinge about its x axis. */
function hingedChain(n: number): RigDescription {
  const bones: BoneDescription[] = [];
  for (let i = 0; i < n; i++) {
    bones.push({
      name: `b${i}`, parent: i ? `b${i - 1}` : null, direction: [1, 0.3 * (i % 2), 0.1], length: 0.5, mass: 1,
      ...(i === 0 ? { head: [0, 0, 0] as [number, number, number] } : { limits: { y: [0, 0], z: [0, 0] } }),
    });
  }
  return { name: `hinged${n}`, root: 'floating', bones };
}

describe('hinge joints', () => {
  it('the humanoid reach: knees and elbows hold 0° on their locked axes at every step (as springs they open)', () => {
    const hinged = hingesOnReach({});
    expect(hinged.worst).toBeLessThan(1e-9);
    const sprung = hingesOnReach({ hinges: false });
    expect(sprung.worst).toBeGreaterThan(0.01);
    // the reach itself is as good either way (within a millimetre)
    expect(hinged.error).toBeLessThan(sprung.error + 1e-3);
  });

  it('a free hinged chain spun at random keeps its momentum, gains no energy and its hinges hold', () => {
    const world = createPhysikWorld();
    addRig(world, { rig: hingedChain(6), settings: { dampingAuto: false, damping: 0, angularDamping: 0, sleepWhenConverged: false } });
    const rig = world.physik.rigs[0]!;
    const B = world.physik.Bone;
    const r = rng(11);
    for (const b of rig.bones) for (let a = 0; a < 3; a++) B.angVel[b * 3 + a] = (2 * r() - 1) * 0.5;
    step(world); // (the hinges take their share of the random spin)
    const momentum = () => measure(world, rig);
    const start = momentum();
    let peak = start.KE, worst = 0;
    for (let i = 0; i < 2000; i++) {
      step(world);
      peak = Math.max(peak, momentum().KE);
      worst = Math.max(worst, lockedAngle(world, [...rig.bones].slice(1)));
    }
    const end = momentum();
    expect(worst).toBeLessThan(1e-9);
    expect(peak / start.KE).toBeLessThan(1.1);
    expect(end.KE / start.KE).toBeGreaterThan(0.5); // (the motion goes on: not drained)
    expect(Math.hypot(...end.L.map((l, a) => l - start.L[a]!)) / start.scaleL).toBeLessThan(5e-2);
    expect(Math.hypot(...end.P.map((p, a) => p - start.P[a]!)) / start.scaleP).toBeLessThan(1e-2);
  });

  it('in a planar pull a hinge moves exactly as a ball joint (nothing for it to hold)', () => {
    // a pinned arm in the xy plane, its elbow's free axis along z (the joint frame's x is the
    // world's z for a bone along +x or +y with the default roll); the tip pulled within the plane
    const tipPath = (limits: BoneDescription['limits']) => {
      const world = createPhysikWorld();
      const h = addRig(world, {
        rig: { name: 'arm', root: 'pinned', bones: [
          { name: 'upper', parent: null, direction: [1, 0, 0], length: 0.5, head: [0, 0, 0] },
          { name: 'lower', parent: 'upper', direction: [1, 0, 0], length: 0.4, ...(limits ? { limits } : {}) },
        ] },
        controlPoints: [{ name: 'tip', bone: 'lower', target: [0.2, 0.6, 0] }],
        settings: { sleepWhenConverged: false },
      });
      const path: number[][] = [];
      for (let i = 0; i < 80; i++) { step(world); path.push([...readPose(world, h.rig).lower!.tail]); }
      return { path, world, lower: h.bones.lower! };
    };
    // which joint-frame axis is normal to the plane: the one the hinge must leave free
    const probe = tipPath(undefined);
    jointRotationVector(probe.world, probe.lower, phi);
    const axis = [0, 1, 2].reduce((best, a) => (Math.abs(phi[a]!) > Math.abs(phi[best]!) ? a : best), 0);
    expect(Math.abs(phi[axis]!) * DEG).toBeGreaterThan(10); // (the elbow did bend)
    const names = ['x', 'y', 'z'] as const;
    const limits = Object.fromEntries(names.filter((_, a) => a !== axis).map((n) => [n, [0, 0]]));
    const hinged = tipPath(limits as BoneDescription['limits']);
    let worst = 0;
    for (let i = 0; i < probe.path.length; i++) {
      worst = Math.max(worst, Math.hypot(...probe.path[i]!.map((v, a) => v - hinged.path[i]![a]!)));
    }
    expect(worst).toBeLessThan(1e-9);
  });

  it('forced through the accurate form of the solve, welds and hinges still hold: the reach ends where the fast form\'s does', () => {
    // (the accurate form runs on the steps whose fast result fails its check: the humanoid's
    // collarbones, hips, knees and elbows must be the same joints there)
    const reach = (form: 'auto' | 'accurate') => {
      const scene = JSON.parse(readFileSync('scenes/humanoid.json', 'utf8'));
      const world = createPhysikWorld();
      const h = addRig(world, { rig: scene.rig, controlPoints: scene.controlPoints, settings: scene.settings, script: scene.script });
      coupledSolveForm.form = form;
      try { step(world, scene.steps); } finally { coupledSolveForm.form = 'auto'; }
      return { pose: readPose(world, h.rig), height: world.physik.Rig.height[h.rig]! };
    };
    const fast = reach('auto'), accurate = reach('accurate');
    let worst = 0;
    for (const name of Object.keys(fast.pose)) {
      worst = Math.max(worst, Math.hypot(...fast.pose[name]!.tail.map((v, a) => v - accurate.pose[name]!.tail[a]!)));
    }
    // (treated as free joints in that form the bones ended 0.27 of the height apart)
    expect(worst / fast.height).toBeLessThan(1e-6);
  });

  it('a joint made a hinge by editing its limits holds from the next step', () => {
    const world = createPhysikWorld();
    const h = addRig(world, {
      rig: { name: 'arm', root: 'pinned', bones: [
        { name: 'upper', parent: null, direction: [1, 0, 0], length: 0.5, head: [0, 0, 0] },
        { name: 'lower', parent: 'upper', direction: [1, 0, 0], length: 0.4 },
      ] },
      controlPoints: [{ name: 'tip', bone: 'lower', target: [0.3, 0.4, 0.5] }],
      settings: { sleepWhenConverged: false },
    });
    step(world, 5);
    jointRotationVector(world, h.bones.lower!, phi);
    // straighten it onto a hinge about x first: the hinge keeps the twist about its free axis
    setJointLimits(world, h.rig, 'lower', { y: [0, 0], z: [0, 0] });
    let worst = 0;
    for (let i = 0; i < 100; i++) { step(world); worst = Math.max(worst, lockedAngle(world, [h.bones.lower!])); }
    expect(worst).toBeLessThan(1e-9);
  });
});
