/**
 * THREE.IK (npm `three-ik`, jsantell/THREE.IK: FABRIK on three.js bones) loaded against the
 * installed three.js, and a chain of it for the peer benchmark (peers.ts).
 *
 * The shim: three-ik 0.1.0 was built for three.js r9x. Its module imports `Math` and
 * `ConeBufferGeometry` from 'three' (renamed `MathUtils` and `ConeGeometry` since) and calls
 * `Matrix4.getInverse` (removed in r123 for `copy(m).invert()`). Its UMD build is evaluated here
 * with a 'three' that adds the two old names, and `Matrix4.prototype.getInverse` is supplied
 * when missing; nothing else of it is changed (the solver's own code runs as published).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as THREE from 'three';

/** The parts of THREE.IK used here. */
export interface ThreeIkModule {
  IK: new () => { add(chain: unknown): void; solve(): void };
  IKChain: new () => { add(joint: unknown, options?: { target?: THREE.Object3D }): void };
  IKJoint: new (bone: THREE.Bone, options?: { constraints?: unknown[] }) => unknown;
}

let loaded: ThreeIkModule | null = null;

/** THREE.IK with the shim above (loaded once). */
export function loadThreeIk(): ThreeIkModule {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  const file = require.resolve('three-ik');
  const source = readFileSync(file, 'utf8');
  const M4 = THREE.Matrix4.prototype as unknown as { getInverse?: (m: THREE.Matrix4) => THREE.Matrix4 };
  if (!M4.getInverse) M4.getInverse = function (this: THREE.Matrix4, m: THREE.Matrix4) { return this.copy(m).invert(); };
  const three = { ...THREE, Math: THREE.MathUtils, ConeBufferGeometry: THREE.ConeGeometry };
  const exports: Record<string, unknown> = {};
  const module = { exports };
  // the UMD wrapper takes the CommonJS branch: factory(exports, require('three'))
  new Function('exports', 'module', 'require', source)(exports, module, (id: string) => (id === 'three' ? three : require(id)));
  loaded = module.exports as unknown as ThreeIkModule;
  return loaded;
}

export interface ThreeIkChain {
  /** Bones b0 … bn: n links; bn's origin is the chain's tip (the effector). */
  bones: THREE.Bone[];
  target: THREE.Object3D;
  ik: { solve(): void };
  /** Put every bone back at its rest position and rotation and update the world matrices. */
  reset(): void;
}

/**
 * A straight chain of n links along +X, `length` long in all, from the origin, as THREE.IK
 * takes it: bones b0 … bn (each child `length / n` along its parent's +Y, the root turned so +Y
 * is +X), one IKChain of n + 1 joints without constraints, the target an Object3D at `target`.
 */
export function threeIkChain(n: number, length: number, target: [number, number, number]): ThreeIkChain {
  const { IK, IKChain, IKJoint } = loadThreeIk();
  const scene = new THREE.Object3D();
  const bones: THREE.Bone[] = [];
  for (let i = 0; i <= n; i++) {
    const b = new THREE.Bone();
    if (i > 0) { b.position.set(0, length / n, 0); bones[i - 1]!.add(b); } else scene.add(b);
    bones.push(b);
  }
  const rootRest = new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(0, 0, 1), -Math.PI / 2);
  const goal = new THREE.Object3D();
  goal.position.set(target[0], target[1], target[2]);
  scene.add(goal);
  const reset = () => {
    for (let i = 0; i <= n; i++) {
      const b = bones[i]!;
      if (i === 0) { b.position.set(0, 0, 0); b.quaternion.copy(rootRest); } else { b.position.set(0, length / n, 0); b.quaternion.set(0, 0, 0, 1); }
    }
    scene.updateMatrixWorld(true);
  };
  reset();
  const ik = new IK();
  const chain = new IKChain();
  for (let i = 0; i <= n; i++) chain.add(new IKJoint(bones[i]!, {}), i === n ? { target: goal } : {});
  ik.add(chain);
  return { bones, target: goal, ik, reset };
}
