/**
 * Take editing in the sandbox's recording controls (src/app/recording.ts over the recorder's
 * trimTake): in and out marks, trim keeps that range bit for bit and can still be resumed
 * from, record over rewinds to the in mark and stops by itself at the out mark; bad marks are
 * refused saying why.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { createPhysikWorld, readMetrics, resetRig, setTarget, step, type PhysikWorld } from '../../../src/core';
import { findRig } from '../../../src/world/world';
import { parseSceneText } from '../../../src/scene/load';
import { addSceneRig } from '../../../src/app/simScene';
import { createRecordingControls, type RecordingControls } from '../../../src/app/recording';

const humanoid = parseSceneText(readFileSync(new URL('../../../scenes/humanoid.json', import.meta.url), 'utf8'), 'humanoid.json');

function setup(): { world: PhysikWorld; rig: number; rec: RecordingControls; run(n: number): void } {
  const world = createPhysikWorld();
  const rig = addSceneRig(world, humanoid);
  let paused = false;
  const rec = createRecordingControls({
    world, rig, sceneName: 'humanoid',
    get paused() { return paused; },
    setPaused(p) { paused = p; },
    reset: () => resetRig(world, rig),
    showError: (m) => { throw new Error(m); },
  });
  // the page's loop: a step, then the recorder, while not paused
  const run = (n: number) => { for (let i = 0; i < n && !paused; i++) { step(world, 1); rec.afterStep(); } };
  return { world, rig, rec, run };
}

describe('take editing', () => {
  it('trim keeps the frames between the marks, their poses and steps bit for bit, and resumes from them', () => {
    const { rec, run } = setup();
    rec.record();
    run(90); // 4.5 s at dt 0.05: 136 frames at 30 fps
    rec.stop();
    const before = rec.recording!;
    const n = before.frameCount, bones = before.bones.length;
    rec.scrub(30); rec.setIn();
    rec.setOut(100);
    expect([rec.state.markIn, rec.state.markOut]).toEqual([30, 100]);
    const rotations = before.rotations.slice(30 * bones * 4, 101 * bones * 4), steps = before.steps.slice(30, 101);
    const t30 = before.times[30]!;
    const t50 = before.times[50]! - t30;
    rec.trim();
    const after = rec.recording!;
    expect(after.frameCount).toBe(71);
    expect(rec.state.frameCount).toBe(71);
    expect(after.rotations).toEqual(rotations);
    expect(after.steps).toEqual(steps);
    expect(after.times[0]).toBe(0);
    expect(after.times[20]).toBe(t50);
    expect([rec.state.markIn, rec.state.markOut]).toEqual([-1, -1]);
    expect(n).toBeGreaterThan(120);
    // the trimmed take resumes from any of its frames (its snapshots were kept with them)
    rec.scrub(10);
    rec.resumeHere();
    expect(rec.state.mode).toBe('recording');
    expect(rec.recording!.frameCount).toBeLessThanOrEqual(12);
  });

  it('record over: rewinds to the in mark, records on and stops by itself at the out mark', () => {
    const { world, rig, rec, run } = setup();
    rec.record();
    run(60);
    rec.stop();
    const stepAt20 = rec.recording!.steps[20]!;
    rec.setIn(20);
    rec.setOut(50);
    rec.recordOver();
    expect(rec.state.mode).toBe('recording');
    expect(world.physik.Rig.step[rig]).toBe(stepAt20);
    run(200); // stops (pauses) itself at frame 50
    expect(rec.state.mode).toBe('live');
    expect(rec.state.frameCount).toBe(51);
    expect(rec.recording!.frameCount).toBe(51);
    expect(rec.recording!.steps[50]).toBeLessThanOrEqual(world.physik.Rig.step[rig]!);
  });

  it('playback shows the recorded state: the pose, the targets the handles show, the step and metrics the status reads', () => {
    const { world, rig, rec, run } = setup();
    const hand = findRig(world, rig).controlPointByName.get('handR')!, T = world.physik.ControlPoint.target;
    const target = () => [T[hand * 3]!, T[hand * 3 + 1]!, T[hand * 3 + 2]!];
    rec.record();
    run(30);
    const early = target();
    setTarget(world, hand, [early[0]! + 0.2, early[1]!, early[2]!]);
    run(30);
    rec.stop();
    const live = { step: readMetrics(world, rig).step, target: target() };
    rec.scrub(10);
    expect(readMetrics(world, rig).step).toBe(rec.recording!.steps[10]);
    expect(target()).toEqual(early);
    rec.scrub(rec.state.frameCount - 1);
    expect(target()).toEqual(live.target);
    rec.live();
    expect({ step: readMetrics(world, rig).step, target: target() }).toEqual(live);
  });

  it('refuses marks outside the take, an empty range, and marks before anything is recorded', () => {
    const { rec, run } = setup();
    expect(() => rec.setIn()).toThrow(/nothing recorded yet to mark its in: press "record" first/);
    expect(() => rec.trim()).toThrow(/nothing recorded yet to trim/);
    rec.record();
    run(20);
    rec.stop();
    expect(() => rec.setOut(500)).toThrow(/the out mark must be a frame of the take, 0 to \d+, got 500/);
    rec.setIn(10);
    rec.setOut(10);
    expect(() => rec.recordOver()).toThrow(/the out mark \(frame 10\) must come after the in mark \(frame 10\)/);
    rec.setOut(5); // before the in mark: the in mark goes
    expect([rec.state.markIn, rec.state.markOut]).toEqual([-1, 5]);
  });
});
