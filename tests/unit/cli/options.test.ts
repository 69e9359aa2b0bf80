/**
 * The command line explains itself: `physik --help` and `physik <command> --help` print on
 * stdout and exit 0, with a line per command, every option with its default, the solver names;
 * `physik --version` prints the package's version. Run through bin/physik.mjs, as a user runs it.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { commandSpecs } from '../../../src/cli/options';
import { settingEnums } from '../../../src/core/settings';

const physik = (...args: string[]) => spawnSync(process.execPath, ['bin/physik.mjs', ...args], { encoding: 'utf8' });

describe('physik --help', () => {
  it('lists every command with a one-line description, on stdout, exit 0', () => {
    const r = physik('--help');
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    for (const c of ['run', 'compare', 'validate', 'record', 'import', 'crosscheck']) expect(r.stdout).toMatch(new RegExp(`^  ${c} +\\S.{20,}$`, 'm'));
    expect(r.stdout).toContain("Run 'physik <command> --help'");
  });

  it('each command explains its options and their defaults; run lists the solvers', () => {
    for (const spec of commandSpecs) {
      const r = physik(spec.name, '--help');
      expect(r.status, spec.name).toBe(0);
      expect(r.stdout).toContain(`usage: physik ${spec.name} `);
      for (const o of spec.options) expect(r.stdout, `${spec.name} --${o.name}`).toMatch(new RegExp(`^  --${o.name}\\b.*${o.default ? '\\(default: ' : ''}`, 'm'));
    }
    const run = physik('run', '--help').stdout;
    for (const solver of settingEnums.solver!) expect(run).toContain(solver);
    expect(run).toMatch(/--steps N +.*\(default: the scene's steps\)/);
    // help asked anywhere among a command's arguments
    expect(physik('record', 'scenes/arm.json', '--help').stdout).toContain('usage: physik record');
  });

  it('--version prints the version of package.json', () => {
    const r = physik('--version');
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(JSON.parse(readFileSync('package.json', 'utf8')).version);
  });

  it('bad arguments still exit 2 with the usage on stderr', () => {
    const r = physik('run', 'scenes/arm.json', '--fast');
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('unknown option "--fast" for run');
    const none = physik();
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('physik run <scene.json>');
  });
});
