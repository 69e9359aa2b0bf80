/**
 * Practical limits on what the plugin takes: values the types allow but that would hang or
 * overflow a run. Scene validation (src/core/validation/check.ts) and the API's setters hold input to them.
 * - MAX_BONES: bones in one rig (the benchmarks build 10,000-bone chains and trees; building a
 *   rig is quadratic in its bones, so 100,000 would take many minutes).
 * - MAX_STEPS: a scene's `steps` (the CLI's `--steps` cap).
 * - MAX_MAGNITUDE: any number of a scene, a settings patch, a control point or a target. A
 *   finite 1e308 passes "finite" but its square (a bone's inertia, a spring's energy) is
 *   Infinity, and NaN follows within a step; up to 1e9 every product the step forms stays finite.
 */
export const MAX_BONES = 10_000;
export const MAX_STEPS = 10_000_000;
export const MAX_MAGNITUDE = 1e9;
