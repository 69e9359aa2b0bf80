import { Solver, Joint, Link, Goal, DOF, SOLVE_STATUS_NAMES } from 'closed-chain-ik/src/core/index.js';
function run(n: number, damping: number, diverge: number, clamp: number) {
const bl = 1 / n;
const root = new Link();
let parent: Link = root;
const joints: Joint[] = [];
for (let i = 0; i < n; i++) {
  const j = new Joint(); j.setDoF(DOF.EX, DOF.EY, DOF.EZ);
  if (i > 0) j.setPosition(bl, 0, 0);
  parent.addChild(j); const l = new Link(); j.addChild(l); parent = l; joints.push(j);
}
const tipJ = new Joint(); tipJ.setPosition(bl, 0, 0); parent.addChild(tipJ); const tip = new Link(); tipJ.addChild(tip);
const goal = new Goal(); goal.setDoF(DOF.X, DOF.Y, DOF.Z); goal.setPosition(0.4, 0.5, 0.3); goal.makeClosure(tip);
const solver = new Solver(root);
solver.restPoseFactor = 0; solver.stallThreshold = 0; solver.translationConvergeThreshold = 1e-9;
solver.dampingFactor = damping; solver.divergeThreshold = diverge; solver.translationErrorClamp = clamp;
const p = new Float32Array(3);
const out: string[] = [];
for (const N of [1,2,4,8,16,32,64,128,256]) {
  for (const j of joints) { j.dofValues.fill(0); j.setMatrixDoFNeedsUpdate(); }
  solver.maxIterations = N;
  const t0 = performance.now(); const r = solver.solve(); const t = performance.now() - t0;
  tip.getWorldPosition(p);
  out.push(`${N}:${SOLVE_STATUS_NAMES[r[0]]?.[0]}:${Math.hypot(p[0]-0.4,p[1]-0.5,p[2]-0.3).toExponential(1)}:${(t*1000).toFixed(0)}`);
}
console.log(n, damping, diverge, clamp, out.join(' '));
}
for (const n of [10, 100]) for (const d of [0.001, 0.01, 0.05, 0.1]) for (const dv of [0.01, 1e9]) run(n, d, dv, 0.1);
