/**
 * A scene run headless, as `npx physik run` does: load a scene file, step it, check its
 * expectations and print what happened.
 *
 *   npx tsx docs/examples/headless-run.ts [scenes/humanoid.json]
 */
import { fileURLToPath } from 'node:url';
import { loadSceneFile, runScene, checkExpect } from 'physik-ecs/scene';

export function headlessRun(file: string): { status: string; atRest: boolean; maxTargetError: number; failures: string[] } {
  const scene = loadSceneFile(file); // throws a SceneError naming file and JSON path for a bad scene
  const summary = runScene(scene);
  const failures = checkExpect(scene, summary).checks.filter((c) => !c.ok).map((c) => `${c.what}: ${c.detail}`);
  console.log(`${file}: ${summary.status} after ${summary.steps} steps, largest target error ${summary.maxTargetError.toExponential(2)}`);
  for (const f of failures) console.log(`  expectation not met: ${f}`);
  return { status: summary.status, atRest: summary.converged, maxTargetError: summary.maxTargetError, failures };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { failures } = headlessRun(process.argv[2] ?? 'scenes/humanoid.json');
  process.exitCode = failures.length > 0 ? 1 : 0;
}
