/**
 * The command line's commands and options, written once: `physik --help` and `physik <command>
 * --help` are printed from this table, and `readOptions` reads a command's arguments by it on
 * top of Node's `util.parseArgs` (each value option given at most once, unknown options named,
 * values checked by the command itself). Limits: options are long (`--name value` or
 * `--name=value`); no short forms, no option bundling.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { settingEnums } from '../core/settings';

export interface OptionSpec {
  name: string;
  /** The value's placeholder (`N`, `F`, `NAME`); a flag has none. */
  value?: string;
  description: string;
  /** What it is when not given, as shown in the help. */
  default?: string;
}

export interface CommandSpec {
  name: string;
  /** The arguments after the command's name, as the usage line shows them. */
  args: string;
  summary: string;
  /** A few more lines for `physik <command> --help`. */
  details?: string;
  options: OptionSpec[];
}

const steps: OptionSpec = { name: 'steps', value: 'N', description: "steps to run (the scene's expect block is checked only without it)", default: "the scene's steps" };
const json: OptionSpec = { name: 'json', description: 'print one JSON object instead of the text report' };
const allowLarge: OptionSpec = { name: 'allow-large', description: 'raise the work and memory bounds tenfold (see docs/robustness.md)' };
const solverNames = () => settingEnums.solver!.join(', ');
const solver: OptionSpec = { name: 'solver', value: 'NAME', description: `run with this solver instead of the scene's: ${solverNames()}`, default: "the scene's (physik)" };

export const commandSpecs: readonly CommandSpec[] = [
  {
    name: 'run', args: '<scene.json> [<scene.json> ...]', summary: 'run a scene headless and print its metrics; exit 1 if its expect block is not met',
    details: 'Several scene files run as a batch in worker threads, results in file order.',
    options: [steps, solver, json, { name: 'workers', value: 'N', description: 'worker threads for a batch (at most the CPU count)', default: 'one per file up to the CPU count' }, allowLarge],
  },
  {
    name: 'compare', args: '<scene.json|rig.glb|.gltf|.bvh>', summary: 'run a scene under PhysIK and every kinematic solver, one row each',
    details: `Solvers: ${solverNames()}; and PhysIK with each hybrid finish. A character file (.glb, .gltf, .bvh) is imported as \`physik import\` does, and its goal control points get targets it can reach: where they lie in a pose made within its joints' limits.`,
    options: [steps, json, allowLarge,
      { name: 'seed', value: 'N', description: 'the random pose a character\'s goals come from', default: '1' },
      { name: 'control-points', value: 'K', description: 'goal control points on a character (its end bones)', default: '2' }],
  },
  {
    name: 'validate', args: '<scene.json>', summary: 'check a scene file and the work it asks for; every error, exit 1 if any',
    options: [allowLarge],
  },
  {
    name: 'record', args: '<scene.json> --out <file.glb|.bvh|.json>', summary: 'record a run as animation: glTF binary, BVH or the lossless JSON recording',
    options: [
      { name: 'out', value: 'FILE', description: 'the file to write (.glb, .bvh or .json, by extension; written whole or not at all)' },
      { name: 'steps', value: 'N', description: 'steps to record', default: '10 s of simulated time' },
      { name: 'fps', value: 'F', description: 'frames per second of the recording', default: '30' },
      solver, allowLarge,
    ],
  },
  {
    name: 'import', args: '<file.glb|.gltf|.bvh> --out <scene.json>', summary: 'a rig from a glTF skin or a BVH hierarchy, written as a scene file',
    options: [
      { name: 'out', value: 'FILE', description: 'the scene file to write (.json)' },
      { name: 'control-points', value: 'N', description: 'control points to add at the ends of the longest chains (0 to 64)', default: '2' },
      { name: 'up', value: 'auto|y|z', description: "the file's up axis (a Z-up file is turned Y-up)", default: 'auto' },
      { name: 'scale', value: 'S', description: 'multiply every length by S', default: '1' },
    ],
  },
  {
    name: 'capture', args: '<rig.glb|.gltf|.bvh> --out <file.glb|.bvh|.json>', summary: "physics on top of motion: the file's clip drives markers, PhysIK moves the rest, recorded",
    details: 'World markers at the heads of the --markers bones follow the clip; --drive joints are driven toward its\nrotations; the other joints are free. Written at the clip\'s frame rate: onto the source skeleton for a\n.bvh from a .bvh and a .glb from a .glb. Prints each marker\'s stray from the clip and the time taken.',
    options: [
      { name: 'out', value: 'FILE', description: 'the file to write (.glb, .bvh or .json, by extension; written whole or not at all)' },
      { name: 'clip', value: 'NAME', description: 'the glTF animation to capture', default: 'the first' },
      { name: 'markers', value: 'A,B,…', description: 'bones whose heads follow the clip in the world (world markers)' },
      { name: 'drive', value: 'A,B,…|all', description: "joints driven toward the clip's rotations (pose-space drives)" },
      { name: 'stiffness', value: 'S', description: 'stiffness of markers and drives, 1/s² (S × the rig mass, or × the inertia a joint turns)', default: '10000' },
      { name: 'damping-ratio', value: 'Z', description: 'damping of markers and drives as a ratio of critical', default: '1' },
    ],
  },
  {
    name: 'crosscheck', args: '<scene.json> | --dynamics', summary: 'PhysIK against a Rapier mirror of the rig: tip distances, rest, time per step',
    details: 'Needs the optional package @dimforge/rapier3d-compat. --dynamics without a scene runs the\nundamped swings against Rapier multibody joints alone.',
    options: [
      json,
      { name: 'steps', value: 'N', description: 'steps to run', default: "the scene's steps" },
      { name: 'joints', value: 'impulse|multibody', description: "Rapier's joint model", default: 'impulse' },
      { name: 'dynamics', description: 'add the dynamics check (undamped swings against multibody joints)' },
      allowLarge,
    ],
  },
];

export function commandSpec(name: string): CommandSpec | undefined {
  return commandSpecs.find((c) => c.name === name);
}

const usageLine = (c: CommandSpec) => `physik ${c.name} ${c.args}${c.options.filter((o) => o.name !== 'out').map((o) => ` [--${o.name}${o.value ? ` ${o.value}` : ''}]`).join('')}`;

/** `physik --help`: every command with its one-line summary. */
export function mainHelp(version: string): string {
  const width = Math.max(...commandSpecs.map((c) => c.name.length));
  return [
    `physik ${version}: PhysIK (physics-based inverse kinematics) scenes from the command line`,
    '',
    'usage: physik <command> [options]',
    '',
    'commands:',
    ...commandSpecs.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    "Run 'physik <command> --help' for a command's options. Also: physik --version.",
    'Exit status: 0 done, 1 a bad or unreadable file, an unmet expect block or a failed write, 2 bad arguments.',
  ].join('\n');
}

/** `physik <command> --help`: its usage, summary and every option with its default. */
export function commandHelp(c: CommandSpec): string {
  const flag = (o: OptionSpec) => `--${o.name}${o.value ? ` ${o.value}` : ''}`;
  const width = Math.max(...c.options.map((o) => flag(o).length));
  return [
    `usage: ${usageLine(c)}`,
    '',
    c.summary.charAt(0).toUpperCase() + c.summary.slice(1) + '.',
    ...(c.details ? [c.details] : []),
    '',
    'options:',
    ...c.options.map((o) => `  ${flag(o).padEnd(width)}  ${o.description}${o.default ? ` (default: ${o.default})` : ''}`),
    `  ${'--help'.padEnd(width)}  this text`,
  ].join('\n');
}

/** Every command's usage line, for an error about the arguments. */
export function usageLines(): string {
  return `usage:\n${commandSpecs.map((c) => `  ${usageLine(c)}`).join('\n')}`;
}

export class UsageError extends Error {}

export interface ReadOptions {
  /** Each option given, by name: a flag's true, a value option's text (undefined: given last, with no value). */
  values: Map<string, string | true | undefined>;
  positionals: string[];
}

/**
 * A command's arguments read by its spec. `--name value` with a value that starts with a dash
 * is that value (`--scale -1` is refused by the command as a bad number, not as a missing one).
 */
export function readOptions(c: CommandSpec, argv: readonly string[]): ReadOptions {
  const valued = new Set(c.options.filter((o) => o.value).map((o) => `--${o.name}`));
  const normalised: string[] = [];
  const bare = new Set<string>(); // value options given last, with nothing after them
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (valued.has(a)) {
      if (i + 1 < argv.length) normalised.push(`${a}=${argv[++i]!}`);
      else bare.add(a.slice(2));
    } else normalised.push(a);
  }
  const options: Record<string, { type: 'string' | 'boolean'; multiple: true }> = {};
  for (const o of c.options) options[o.name] = { type: o.value ? 'string' : 'boolean', multiple: true };
  let parsed: { values: Record<string, (string | boolean)[] | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: normalised, options, allowPositionals: true, strict: true }) as typeof parsed;
  } catch (e) {
    const code = (e as { code?: string }).code;
    const text = (e as Error).message;
    const option = /'(--?[^'\s]+)/.exec(text)?.[1];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new UsageError(`unknown option "${option ?? text}" for ${c.name}\nusage: ${usageLine(c)}`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      const spec = c.options.find((o) => `--${o.name}` === option);
      if (spec && !spec.value) throw new UsageError(`${option} takes no value`);
      throw new UsageError(`${option} expects ${spec?.value ?? 'a value'}, got nothing`);
    }
    throw new UsageError(`${c.name}: ${text}`);
  }
  const values = new Map<string, string | true | undefined>();
  for (const o of c.options) {
    const given = parsed.values[o.name] ?? [];
    if (bare.has(o.name)) {
      if (given.length > 0) throw new UsageError(`--${o.name} is given twice (${JSON.stringify(given[0])} and ""); give it once`);
      values.set(o.name, undefined);
      continue;
    }
    if (given.length === 0) continue;
    // an option that takes a value is given once: a second one would silently win
    if (o.value && given.length > 1) throw new UsageError(`--${o.name} is given twice (${JSON.stringify(given[0])} and ${JSON.stringify(given[1])}); give it once`);
    values.set(o.name, o.value ? String(given[0]) : true);
  }
  return { values, positionals: parsed.positionals };
}

/** `--steps`: a whole number of steps, at most ten million. */
export function stepsOption(v: string | undefined): number {
  if (v === undefined || !/^\d+$/.test(v)) throw new UsageError(`--steps expects a non-negative integer, got ${v === undefined ? 'nothing' : `"${v}"`}`);
  const n = Number(v);
  if (n > 10_000_000) throw new UsageError(`--steps ${v} is too large (at most 10000000)`);
  return n;
}

/** The package's version, from its package.json (found above this file, in the sources or in dist/). */
export function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 5; up++) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'physik-ecs' && typeof pkg.version === 'string') return pkg.version;
    }
    dir = dirname(dir);
  }
  return 'unknown';
}

/**
 * A module that needs an optional package (three for glTF, @dimforge/rapier3d-compat for the
 * cross-check), loaded when a command first needs it; without the package, an error that says
 * which to install instead of Node's module-not-found.
 */
export async function loadOptional<T>(load: () => Promise<T>, pkg: string, what: string): Promise<T> {
  try {
    return await load();
  } catch (e) {
    const code = (e as { code?: string }).code;
    if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && (e as Error).message.includes(`'${pkg}`)) {
      throw new Error(`${what} needs the optional package ${pkg}: install it with npm install ${pkg}`);
    }
    throw e;
  }
}
