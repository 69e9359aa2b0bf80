/**
 * Twist probe: runs scenes headless and records each bone's twist about its own axis over the
 * run, then prints the largest twists, the final target errors and the limits still pressed at
 * the end. Not a test: it only prints (`npx tsx tests/bench/twist.ts [scene ...] [--json]`).
 *
 * Twist: the swing-twist decomposition of the joint rotation (restLocal⁻¹ · parent⁻¹ · bone)
 * about the joint frame's y (the bone's axis), 2 atan2(q_y, q_w), unwrapped from step to step
 * so a bone that spins through ±180° is counted in full. Pressed: a limited axis whose angle
 * (as the limits see it: limitRotationVector) lies past min or max at the end of the run.
 */
import { fileURLToPath } from 'node:url';
import { createPhysikWorld, addRig, step, readMetrics } from '../../src/core';
import { loadSceneFile } from '../../src/scene/loadFile';
import { limitRotationVector } from '../../systems/torsionSprings';
import { quatMulConjA } from '../../src/math/quat';

const DEG = 180 / Math.PI;
const DEFAULT_SCENES = ['humanoid', 'scale-m', 'arm-raise', 'running-pose', 'sit', 'cannon', 'unreachable'];

export interface TwistReport {
  scene: string;
  steps: number;
  converged: boolean;
  /** Largest |twist| over the run per bone (deg), and the twist at the end. */
  maxTwistDeg: Record<string, number>;
  finalTwistDeg: Record<string, number>;
  targetErrors: Record<string, number>;
  /** Limited axes past their limits at the end: "bone.axis" → degrees past. */
  pressed: Record<string, number>;
  maxLimitViolationDeg: number;
}

export function probeTwist(sceneName: string, settings: Record<string, unknown> = {}): TwistReport {
  const scene = loadSceneFile(fileURLToPath(new URL(`../../scenes/${sceneName}.json`, import.meta.url)));
  const world = createPhysikWorld();
  const handle = addRig(world, { rig: scene.rig, controlPoints: scene.controlPoints, settings: { ...scene.settings, ...settings }, script: scene.script });
  const { Bone, AngularLimit } = world.physik;
  const rec = world.physik.rigs[0]!;
  const n = rec.bones.length;
  const q = new Float64Array(4);
  const prev = new Float64Array(n), unwrapped = new Float64Array(n), peak = new Float64Array(n);
  const twistNow = (i: number): number => {
    const b = rec.bones[i]!, p = Bone.parent[b]!;
    if (p < 0) return 0;
    quatMulConjA(q, 0, Bone.rot, p * 4, Bone.rot, b * 4);
    quatMulConjA(q, 0, Bone.restLocal, b * 4, q, 0);
    return 2 * Math.atan2(q[1]!, q[3]!);
  };
  for (let i = 0; i < n; i++) prev[i] = unwrapped[i] = twistNow(i);
  for (let s = 0; s < scene.steps; s++) {
    step(world, 1);
    for (let i = 0; i < n; i++) {
      const t = twistNow(i);
      let d = t - prev[i]!;
      d -= 2 * Math.PI * Math.round(d / (2 * Math.PI));
      unwrapped[i] = unwrapped[i]! + d;
      prev[i] = t;
      if (Math.abs(unwrapped[i]!) > peak[i]!) peak[i] = Math.abs(unwrapped[i]!);
    }
  }
  const m = readMetrics(world, handle.rig);
  const phi = new Float64Array(3);
  const pressed: Record<string, number> = {};
  for (let i = 1; i < n; i++) {
    const b = rec.bones[i]!;
    limitRotationVector(world, b, phi);
    for (let a = 0; a < 3; a++) {
      if (!AngularLimit.enabled[b * 3 + a]) continue;
      const th = phi[a]!, mn = AngularLimit.min[b * 3 + a]!, mx = AngularLimit.max[b * 3 + a]!;
      const past = th > mx ? th - mx : th < mn ? mn - th : 0;
      if (past > 1e-9) pressed[`${rec.boneNames[i]}.${'xyz'[a]}`] = past * DEG;
    }
  }
  const maxTwistDeg: Record<string, number> = {}, finalTwistDeg: Record<string, number> = {};
  for (let i = 1; i < n; i++) {
    maxTwistDeg[rec.boneNames[i]!] = peak[i]! * DEG;
    finalTwistDeg[rec.boneNames[i]!] = unwrapped[i]! * DEG;
  }
  return {
    scene: sceneName, steps: scene.steps, converged: m.atRest, maxTwistDeg, finalTwistDeg,
    targetErrors: m.targetErrors, pressed, maxLimitViolationDeg: m.maxLimitViolationDeg,
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const names = args.filter((a) => !a.startsWith('--'));
  const reports = (names.length ? names : DEFAULT_SCENES).map((name) => probeTwist(name));
  if (json) console.log(JSON.stringify(reports, null, 1));
  else {
    for (const r of reports) {
      const twists = Object.entries(r.maxTwistDeg).sort((a, b) => b[1] - a[1]).slice(0, 6);
      console.log(`${r.scene}: ${r.steps} steps, ${r.converged ? 'at rest' : 'moving'}, max limit violation ${r.maxLimitViolationDeg.toFixed(2)}°`);
      console.log(`  max twist: ${twists.map(([k, v]) => `${k} ${v.toFixed(1)}° (end ${r.finalTwistDeg[k]!.toFixed(1)}°)`).join(', ')}`);
      for (const k of ['thigh.L', 'thigh.R', 'upperArm.L', 'upperArm.R']) {
        if (k in r.maxTwistDeg && !twists.some(([t]) => t === k)) console.log(`  ${k}: max ${r.maxTwistDeg[k]!.toFixed(1)}°, end ${r.finalTwistDeg[k]!.toFixed(1)}°`);
      }
      console.log(`  target errors (mm): ${Object.entries(r.targetErrors).map(([k, v]) => `${k} ${(v * 1000).toFixed(1)}`).join(', ')}`);
      const p = Object.entries(r.pressed);
      console.log(`  pressed at the end: ${p.length ? p.map(([k, v]) => `${k} ${v.toFixed(2)}°`).join(', ') : 'none'}`);
    }
  }
}
