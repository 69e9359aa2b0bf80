import { createWorld } from 'bitecs';
import { installPhysik, addRig, setTarget, step, readPose, readMetrics } from '../../../src/core';

const world = installPhysik(createWorld()); // your own bitecs world, now with the plugin
const { rig, controlPoints } = addRig(world, {
  rig: { name: 'arm', root: 'pinned', bones: [
    { name: 'upper', parent: null, direction: [1, 0, 0], length: 0.3 },
    { name: 'fore', parent: 'upper', direction: [1, 0, 0], length: 0.3, limits: { x: [0, 0], y: [0, 0], z: [0, 120] } },
  ] },
  controlPoints: [{ name: 'hand', bone: 'fore' }],
});
setTarget(world, controlPoints.hand!, [0.3, 0.3, 0]); // starts the interpolated move
step(world, 300);
export const pose = readPose(world, rig), metrics = readMetrics(world, rig);
