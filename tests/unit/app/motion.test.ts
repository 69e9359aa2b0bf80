/**
 * The sandbox's Motion (src/app/motion.ts) without a page: the CMU walk imported as the sandbox
 * imports a dropped .bvh (two control points), its clip played through the physics with each
 * preset, bad multipliers refused with the world untouched, everything put back when off; a
 * .glb's animation (RiggedFigure) played the same way, and the sandbox's reset starting the clip over.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { getSettings, resetRig, step, type PhysikWorld } from '../../../src/core';
import { createPhysikWorld } from '../../../src/core';
import { importBvh } from '../../../src/io/bvhImport';
import { importGltf } from '../../../src/io/gltfImport';
import { addSceneRig } from '../../../src/app/simScene';
import { checkMotionOptions, checkMultiplier, createMotion, markersForPreset, type Motion } from '../../../src/app/motion';
import { poseDriveOf } from '../../../src/world/clipPose';

const FILE = 'cmu_subject02_walk_delfem2.bvh';
const text = readFileSync(new URL(`../../fixtures/external/${FILE}`, import.meta.url), 'utf8');

function sandboxLike(): { world: PhysikWorld; rig: number; motion: Motion; paused: () => boolean } {
  const imported = importBvh(text, FILE, { controlPoints: 2 });
  const world = createPhysikWorld();
  const rig = addSceneRig(world, imported.scene);
  let paused = false;
  const motion = createMotion({
    world,
    get rig() { return rig; },
    file: { name: 'walk', fileName: FILE, data: text },
    rigDescription: () => imported.scene.rig,
    setPaused: (p) => { paused = p; },
    get paused() { return paused; },
    reset: () => resetRig(world, rig),
  });
  return { world, rig, motion, paused: () => paused };
}

/** A .glb character of the fixtures imported as the sandbox imports a dropped one, with its Motion. */
async function glbLike(name: string): Promise<{ world: PhysikWorld; rig: number; motion: Motion }> {
  const bytes = readFileSync(new URL(`../../fixtures/external/${name}.glb`, import.meta.url));
  const data = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const imported = await importGltf(data, `${name}.glb`, { controlPoints: 2 });
  const world = createPhysikWorld();
  const rig = addSceneRig(world, imported.scene);
  const motion = createMotion({
    world, rig, file: { name, fileName: `${name}.glb`, data }, rigDescription: () => imported.scene.rig,
    setPaused: () => undefined, paused: false, reset: () => resetRig(world, rig),
  });
  return { world, rig, motion };
}

describe('Motion in the sandbox (logic)', () => {
  it('refuses bad multipliers and presets, naming them', () => {
    for (const bad of [NaN, -1, 0, Infinity, 101, 'abc', '']) expect(() => checkMultiplier(bad, 'stiffness')).toThrow(/stiffness multiplier: expected a number more than 0/);
    expect(() => checkMultiplier(-0.5, 'damping')).toThrow(/damping multiplier: expected a number 0 or more/);
    expect(checkMultiplier(0, 'damping')).toBe(0);
    expect(checkMultiplier('2.5', 'stiffness')).toBe(2.5);
    expect(() => checkMotionOptions({ preset: 'feet' as never })).toThrow(/markers: expected "ends", "all", "none"/);
    expect(() => markersForPreset('ends', ['a', 'b'], { spine: [], neck: [] })).toThrow(/found no hips or hands or feet/);
  });

  it('hips, hands and feet: markers stay on the clip while free bones move on their own; off puts everything back', async () => {
    const { world, rig, motion } = sandboxLike();
    const before = getSettings(world, rig);
    const pointsBefore = Object.values(world.physik.rigs[0]!.controlPoints).map((cp) => world.physik.ControlPoint.active[cp]);
    await motion.start({ preset: 'ends' });
    expect(motion.on).toBe(true);
    expect(getSettings(world, rig).dt).toBeCloseTo(1 / 120, 6);
    // bad values never reach the world
    const k = poseDriveOf(world, rig)!.stiffness;
    await expect(motion.set({ stiffness: NaN })).rejects.toThrow(/stiffness multiplier/);
    await expect(motion.set({ damping: -1 })).rejects.toThrow(/damping multiplier/);
    expect(poseDriveOf(world, rig)!.stiffness).toBe(k);
    step(world, 120);
    const r = motion.read();
    expect(r.clip?.fps).toBeCloseTo(120, 2);
    expect(r.time).toBeCloseTo(1, 4);
    expect(r.markers.map((m) => m.bone).sort()).toEqual(['Hips', 'LeftFoot', 'LeftHand', 'RightFoot', 'RightHand']);
    expect(r.markerStrayMax).toBeLessThan(0.03);
    expect(r.markerStray).toBeLessThan(0.03);
    expect(r.ghostDistance).toBeGreaterThan(0);
    expect(r.ghostDistance).toBeLessThan(0.5);
    // live multipliers
    await motion.set({ stiffness: 2, damping: 0.5 });
    expect(poseDriveOf(world, rig)!.stiffness).toBeCloseTo(20000, 6);
    step(world, 10);
    expect(motion.read().markerStray).toBeLessThan(0.03);
    motion.stop();
    expect(motion.on).toBe(false);
    expect(getSettings(world, rig)).toEqual(before);
    expect(Object.values(world.physik.rigs[0]!.controlPoints).map((cp) => world.physik.ControlPoint.active[cp])).toEqual(pointsBefore);
    expect(poseDriveOf(world, rig)).toBeUndefined();
  });

  it('clip only follows the clip exactly; all joints driven stays near it; the end pauses and play starts over', async () => {
    const { world, motion, paused } = sandboxLike();
    await motion.start({ preset: 'none' });
    step(world, 60);
    expect(motion.read().ghostDistance).toBeLessThan(1e-6);
    await motion.set({ preset: 'all' });
    expect(motion.read().time).toBeCloseTo(0.5, 4);
    step(world, 60);
    const r = motion.read();
    expect(r.preset).toBe('all');
    expect(r.ghostDistance).toBeLessThan(0.1);
    // to the end: paused there
    const left = Math.ceil((r.clip!.duration - r.time) * 120) + 2;
    for (let i = 0; i < left && !paused(); i++) step(world, 1);
    expect(paused()).toBe(true);
    expect(motion.read().ended).toBe(true);
    motion.play(true);
    expect(paused()).toBe(false);
    expect(motion.read().time).toBe(0);
    expect(motion.read().ended).toBe(false);
  });

  it("a .glb's animation: RiggedFigure's clip with markers on its hips, hands and feet (mapped by shape)", async () => {
    const { world, rig, motion } = await glbLike('RiggedFigure');
    await motion.start({ preset: 'ends' });
    step(world, 15);
    const r = motion.read();
    expect(r.clip).toMatchObject({ fps: 30, frames: 39 });
    expect(r.time).toBeCloseTo(0.5, 6);
    expect(r.markers).toHaveLength(5);
    expect(r.markerStrayMax).toBeLessThan(0.03);
    // the page's reset while on: the clip from its start, the markers still there
    motion.restart();
    expect(motion.read().time).toBe(0);
    expect(motion.read().markers).toHaveLength(5);
    step(world, 3);
    expect(motion.read().markerStray).toBeLessThan(0.03);
    motion.stop();
    expect(poseDriveOf(world, rig)).toBeUndefined();
  });

  it('bones tied one by one: a forearm made to follow exactly, a hand freed, the rest of the set kept; bad ties refused', async () => {
    const { world, rig, motion } = sandboxLike();
    expect(() => checkMotionOptions({ ties: { Hips: 'glue' as never } })).toThrow(/tie of "Hips": expected "marker", "drive" or "follow", got "glue"/);
    await motion.start({ preset: 'ends' });
    step(world, 30);
    expect(motion.tieOf('LeftHand')).toBe('marker');
    expect(motion.tieOf('LeftForeArm')).toBe('free');
    await motion.tie('LeftForeArm', 'follow');
    await motion.tie('LeftHand', 'free');
    expect(motion.options.preset).toBe('custom');
    expect(motion.options.ties).toEqual({ Hips: 'marker', RightHand: 'marker', LeftFoot: 'marker', RightFoot: 'marker', LeftForeArm: 'follow' });
    expect(motion.tieOf('LeftForeArm')).toBe('follow');
    expect(motion.tieOf('LeftHand')).toBe('free');
    expect(motion.read().time).toBeCloseTo(0.25, 4); // (tied again at the time shown)
    step(world, 30);
    const r = motion.read();
    expect(r.markers.map((m) => m.bone).sort()).toEqual(['Hips', 'LeftFoot', 'RightFoot', 'RightHand']);
    expect(r.markerStray).toBeLessThan(0.03);
    // the followed forearm is turned as the clip has it (its head hangs on the free upper arm);
    // the hand below it, free, is not
    const f = motion.ghostFrame()!, record = world.physik.rigs[0]!, { Bone } = world.physik;
    const turnedOff = (name: string) => {
      const i = record.boneNames.indexOf(name), b = record.bones[i]!;
      let dot = 0;
      for (let c = 0; c < 4; c++) dot += Bone.rot[b * 4 + c]! * f.rot[i * 4 + c]!;
      return 2 * Math.acos(Math.min(1, Math.abs(dot)));
    };
    expect(turnedOff('LeftForeArm')).toBeLessThan(1e-6);
    expect(turnedOff('LeftHand')).toBeGreaterThan(1e-4);
    // refused, nothing changed
    const rec = poseDriveOf(world, rig);
    await expect(motion.tie('Tail', 'drive')).rejects.toThrow(/tie of "Tail": this rig has no bone of that name/);
    await expect(motion.tie('Hips', 'glue' as never)).rejects.toThrow(/tie of "Hips": expected "free", "marker", "drive" or "follow"/);
    expect(poseDriveOf(world, rig)).toBe(rec);
    // "chosen per bone" picked from another preset starts from that preset's set
    await motion.set({ preset: 'all' });
    await motion.set({ preset: 'custom' });
    expect(Object.values(motion.options.ties).every((t) => t === 'drive')).toBe(true);
    expect(Object.keys(motion.options.ties)).toHaveLength(record.bones.length);
  });

  it("a tied bone's own multipliers: a softer hand marker, refused for a free bone or a bad value", async () => {
    const { world, rig, motion } = sandboxLike();
    await motion.start({ preset: 'ends' });
    step(world, 12);
    await motion.scaleTie('LeftHand', { stiffness: 0.5 });
    expect(motion.options.preset).toBe('custom');
    expect(motion.scaleOf('LeftHand')).toEqual({ stiffness: 0.5, damping: 1 });
    expect(motion.scaleOf('RightHand')).toEqual({ stiffness: 1, damping: 1 });
    const rec = poseDriveOf(world, rig)!, record = world.physik.rigs[0]!;
    const markerOf = (bone: string) => Array.from(rec.markerBone).indexOf(record.boneNames.indexOf(bone));
    const { ControlPoint } = world.physik;
    const k = (bone: string) => ControlPoint.stiffness[rec.markerCp[markerOf(bone)]!]!;
    expect(k('LeftHand') / k('RightHand')).toBeCloseTo(0.5, 12);
    await motion.scaleTie('LeftHand', { damping: 2 });
    expect(motion.scaleOf('LeftHand')).toEqual({ stiffness: 0.5, damping: 2 });
    const now = poseDriveOf(world, rig);
    await expect(motion.scaleTie('LeftForeArm', { stiffness: 2 })).rejects.toThrow(/"LeftForeArm" is free: tie it to the clip first/);
    await expect(motion.scaleTie('LeftHand', { damping: -1 })).rejects.toThrow(/tie of "LeftHand": damping multiplier: expected a number 0 or more/);
    expect(poseDriveOf(world, rig)).toBe(now);
    expect(motion.scaleOf('LeftHand')).toEqual({ stiffness: 0.5, damping: 2 });
    step(world, 30);
    expect(motion.read().markerStray).toBeLessThan(0.03);
    // freed, the bone loses its multipliers
    await motion.tie('LeftHand', 'free');
    expect(motion.scaleOf('LeftHand')).toEqual({ stiffness: 1, damping: 1 });
  });

  it('a preset the rig cannot take is refused while the clip plays on as it was', async () => {
    const { world, rig, motion } = await glbLike('RiggedSimple');
    await expect(motion.start({ preset: 'ends' })).rejects.toThrow(/found no hips or hands or feet/);
    expect(motion.on).toBe(false);
    await motion.start({ preset: 'all' });
    step(world, 10);
    const record = poseDriveOf(world, rig);
    await expect(motion.set({ preset: 'ends' })).rejects.toThrow(/choose "all joints driven"/);
    expect(motion.options.preset).toBe('all');
    expect(poseDriveOf(world, rig)).toBe(record);
    expect(motion.read().time).toBeCloseTo(10 / 30, 4);
  });
});
