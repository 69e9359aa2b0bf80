/**
 * The timeline's axis and mappings (src/hud/timeline.ts): one axis of steps from 0 past the
 * live step, the last key and the take; a step and its x map both ways; the frame nearest a
 * step; the key under the pointer.
 */
import { describe, expect, it } from 'vitest';
import { axisOf, frameNearStep, keyAtX, stepAtX, xOfStep } from '../../../src/hud/timelineAxis';
import type { ScriptEvent } from '../../../src/world/types';

const key = (step: number, point = 'hand'): ScriptEvent => ({ step, point, target: [0, 1, 0] });
const scene = (over: Partial<Parameters<typeof axisOf>[0]> = {}) => ({ dt: 0.05, step: 0, script: [], frameSteps: null, selectedKey: -1, ...over });

describe('the timeline axis', () => {
  it('spans at least 10 s, grows past the live step, the last key and the take, in whole seconds', () => {
    expect(axisOf(scene(), 0)).toEqual({ lo: 0, hi: 220 }); // 10 s × 1.1 = 11 s of 0.05 s steps
    expect(axisOf(scene({ script: [key(300)] }), 0).hi).toBe(340); // 15 s × 1.1 → 17 s
    expect(axisOf(scene({ step: 500 }), 0).hi).toBe(560);
    // only the recorded frames count, not the buffer's spare room
    expect(axisOf(scene({ frameSteps: Int32Array.from([10, 11, 400, 0]) }), 2).hi).toBe(220);
    expect(axisOf(scene({ frameSteps: Int32Array.from([10, 11, 400, 0]) }), 3).hi).toBe(440);
    // script switches without a target are not keys
    expect(axisOf(scene({ script: [{ step: 900, point: 'hand', active: false }] }), 0).hi).toBe(220);
  });

  it('maps steps to x and back, clamped to the strip', () => {
    const axis = { lo: 0, hi: 200 };
    expect(xOfStep(0, 420, axis)).toBe(10);
    expect(xOfStep(200, 420, axis)).toBe(410);
    expect(stepAtX(xOfStep(123, 420, axis), 420, axis)).toBeCloseTo(123, 9);
    expect(stepAtX(-50, 420, axis)).toBe(0);
    expect(stepAtX(5000, 420, axis)).toBe(200);
  });

  it('finds the frame nearest a step among the recorded ones', () => {
    const steps = Int32Array.from([20, 21, 23, 24, 26, 0, 0]);
    expect(frameNearStep(steps, 5, 0)).toBe(0);
    expect(frameNearStep(steps, 5, 22)).toBe(1); // equally near 21 and 23: the earlier
    expect(frameNearStep(steps, 5, 22.6)).toBe(2);
    expect(frameNearStep(steps, 5, 1000)).toBe(4); // not the spare zeros
    expect(frameNearStep(steps, 0, 10)).toBe(0);
  });

  it('takes the key under the pointer within a few pixels, and only keys', () => {
    const axis = { lo: 0, hi: 200 }, script = [key(0), { step: 50, point: 'hand', active: false }, key(100), key(101, 'foot')];
    expect(keyAtX(xOfStep(100, 420, axis) + 3, 420, axis, script)).toBe(3); // 100 and 101 are 2 px apart: the nearer
    expect(keyAtX(xOfStep(99, 420, axis), 420, axis, script)).toBe(2);
    expect(keyAtX(xOfStep(50, 420, axis), 420, axis, script)).toBe(-1); // a switch, not a key
    expect(keyAtX(xOfStep(0, 420, axis) - 6, 420, axis, script)).toBe(0);
    expect(keyAtX(xOfStep(25, 420, axis), 420, axis, script)).toBe(-1);
  });
});
