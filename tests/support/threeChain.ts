/**
 * A straight chain of n bones along +X, `length` long in all, as three.js's CCDIKSolver takes
 * it: a SkinnedMesh with bones b0..b(n-1), the tip bone bn (the effector) and a target bone at
 * `target`, and the IK entry (links tip to root, one iteration). Shared by the peers benchmark
 * and tests/unit/systems/ik/ccdAgainstThree.test.ts, so both compare against the same three.js chain.
 */
import {
  Bone, BufferGeometry, Float32BufferAttribute, MeshBasicMaterial, Skeleton, SkinnedMesh, Uint16BufferAttribute,
} from 'three';
import { CCDIKSolver, type IK } from 'three/examples/jsm/animation/CCDIKSolver.js';

export interface ThreeChain { bones: Bone[]; ik: IK; solver: CCDIKSolver }

export function threeChain(n: number, length: number, target: readonly [number, number, number]): ThreeChain {
  const bones: Bone[] = [];
  for (let i = 0; i <= n; i++) { // bones 0..n-1 and the tip bone n (the effector)
    const b = new Bone();
    b.name = `b${i}`;
    if (i > 0) { b.position.set(length / n, 0, 0); bones[i - 1]!.add(b); }
    bones.push(b);
  }
  const goal = new Bone();
  goal.name = 'target';
  bones.push(goal);
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', new Float32BufferAttribute([0, 0, 0], 3));
  geometry.setAttribute('skinIndex', new Uint16BufferAttribute([0, 0, 0, 0], 4));
  geometry.setAttribute('skinWeight', new Float32BufferAttribute([1, 0, 0, 0], 4));
  const mesh = new SkinnedMesh(geometry, new MeshBasicMaterial());
  mesh.add(bones[0]!);
  mesh.add(goal);
  mesh.bind(new Skeleton(bones));
  goal.position.set(target[0], target[1], target[2]);
  mesh.updateMatrixWorld(true);
  const links: IK['links'] = [];
  for (let i = n - 1; i >= 0; i--) links.push({ index: i });
  const ik: IK = { target: n + 1, effector: n, links, iteration: 1 };
  return { bones, ik, solver: new CCDIKSolver(mesh, [ik]) };
}
