/**
 * The command line's exit codes and its output streams: `run` (one file and a batch),
 * `compare` and `crosscheck` exit 1 when a scene's expect block is not met and name each
 * failed check on stderr (file, JSON path, expected, got); an option given twice is refused
 * (exit 2); a reader that goes away early (EPIPE) ends the process with 0 and a full device
 * (ENOSPC) with 1 and one line, never an unhandled-error stack.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { runCli as cli } from '../../support/cli';

const root = join(__dirname, '../../..');
const bin = join(root, 'bin/physik.mjs');
const tmp = mkdtempSync(join(tmpdir(), 'physik-cli-exit-'));
const bone = (name: string, parent: string | null, extra: Record<string, unknown> = {}) => ({ name, parent, direction: [0, 1, 0], length: 1, ...extra });

/** A two-bone arm reaching for a point it can reach, run for a few steps, with the expect block given. */
function arm(name: string, expectBlock: unknown): string {
  const file = join(tmp, `${name}.json`);
  writeFileSync(file, JSON.stringify({
    name,
    rig: { name: 'arm', bones: [bone('upper', null), bone('lower', 'upper', { direction: [1, 0, 0], length: 0.8 })] },
    controlPoints: [{ name: 'hand', bone: 'lower', target: [1, 1, 0] }],
    settings: { dt: 0.02 },
    steps: 20,
    expect: expectBlock,
  }));
  return file;
}

/** A chain of `n` bones (its JSON summary holds a pose per bone: about 200 bytes each). */
function chain(n: number): string {
  const file = join(tmp, `chain${n}.json`);
  const bones = Array.from({ length: n }, (_, i) => ({ name: `b${i}`, parent: i ? `b${i - 1}` : null, direction: [0, 1, 0], length: 0.1 }));
  writeFileSync(file, JSON.stringify({ name: `chain${n}`, rig: { name: 'c', bones }, controlPoints: [{ name: 'tip', bone: `b${n - 1}`, target: [0.3, 0.08 * n, 0] }], steps: 1 }));
  return file;
}

// met: finite; not met: a target error of zero (20 steps do not get there) and a range it is outside of
const met = arm('met', { finite: true });
const unmet = arm('unmet', { finite: true, metrics: { maxTargetError: { max: 1e-12 }, steps: { min: 100, max: 200 } }, targets: { hand: { max: 1e-12 } } });
const unmetLines = [
  `${unmet}: expect.metrics.maxTargetError: expected at most 1e-12, got `,
  `${unmet}: expect.metrics.steps: expected between 100 and 200, got 20`,
  `${unmet}: expect.targets.hand: expected at most 1e-12, got `,
];

describe('an expect block not met', () => {
  it('run exits 1 and names each failed check on stderr; a met block exits 0', async () => {
    for (const json of [[], ['--json']]) {
      const bad = await cli(['run', unmet, ...json]);
      expect(bad.code).toBe(1);
      for (const line of unmetLines) expect(bad.err).toContain(line);
      expect(bad.err).not.toContain('expect.finite');
      expect(bad.err.split('\n')).toHaveLength(3);
      const good = await cli(['run', met, ...json]);
      expect(good.code, good.err).toBe(0);
      expect(good.err).toBe('');
    }
    // the text report still shows the block
    expect((await cli(['run', unmet])).out).toMatch(/expect {12}NOT met/);
    // --steps (or --solver) runs something else than the scene as written: its expect block is not checked
    expect((await cli(['run', unmet, '--steps', '5'])).code).toBe(0);
  });

  it('a batch exits 1 when one scene misses its block, naming it; the others still run', async () => {
    for (const json of [[], ['--json']]) {
      const r = await cli(['run', met, unmet, '--workers', '1', ...json]);
      expect(r.code).toBe(1);
      for (const line of unmetLines) expect(r.err).toContain(line);
      expect(r.err).not.toContain(met);
      if (json.length) {
        const results = JSON.parse(r.out) as { file: string; failures?: string[]; expect?: { ok: boolean } }[];
        expect(results.map((x) => x.expect?.ok)).toEqual([true, false]);
        expect(results[1]!.failures).toHaveLength(3);
      } else {
        expect(r.out).toMatch(/2 scenes: 2 ran \(expect met in 1 of 2\), 0 could not be run/);
      }
    }
    expect((await cli(['run', met, met, '--workers', '1'])).code).toBe(0);
  });

  it('compare and crosscheck exit 1 too (the block checked on the scene as written)', async () => {
    const compare = await cli(['compare', unmet]);
    expect(compare.code).toBe(1);
    for (const line of unmetLines) expect(compare.err).toContain(line);
    expect(compare.out).toMatch(/expect of physik as written: NOT met/);
    const compareJson = await cli(['compare', unmet, '--json']);
    expect(compareJson.code).toBe(1);
    expect(JSON.parse(compareJson.out).expect.ok).toBe(false);
    expect((await cli(['compare', met])).code).toBe(0);

    const cross = await cli(['crosscheck', unmet]);
    expect(cross.code).toBe(1);
    for (const line of unmetLines) expect(cross.err).toContain(line);
    expect((await cli(['crosscheck', met])).code).toBe(0);
  });

  it('the process exits with the code main returns', () => {
    const r = spawnSync(process.execPath, [bin, 'run', unmet], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(unmetLines[0]);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('an option given twice', () => {
  it('is refused with exit 2, naming the option', async () => {
    for (const [argv, flag] of [
      [['run', met, '--steps', '5', '--steps', '6'], '--steps'],
      [['run', met, met, '--workers', '1', '--workers', '2'], '--workers'],
      [['run', met, '--solver', 'ccd', '--solver', 'dls'], '--solver'],
      [['record', met, '--out', join(tmp, 'a.json'), '--out', join(tmp, 'b.json')], '--out'],
      [['record', met, '--fps', '10', '--fps', '20', '--out', join(tmp, 'a.json')], '--fps'],
      [['import', join(tmp, 'x.bvh'), '--scale', '1', '--scale', '2', '--out', join(tmp, 'x.json')], '--scale'],
      [['crosscheck', met, '--steps', '5', '--steps', '6'], '--steps'],
      [['crosscheck', met, '--joints', 'impulse', '--joints', 'multibody'], '--joints'],
    ] as const) {
      const r = await cli([...argv]);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err).toContain(`${flag} is given twice`);
    }
    expect((await cli(['run', met, '--steps', '5'])).code).toBe(0);
  });
});

describe('output streams', () => {
  const big = chain(600); // its JSON summary (~130 kB) is more than a pipe holds
  const many = Array.from({ length: 100 }, () => met); // ~130 kB of text reports

  /** A shell command line running the CLI with `args`, then `tail` (a redirection or a pipe). */
  function sh(args: string[], tail: string): Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
    const quoted = [process.execPath, bin, ...args].map((a) => `'${a}'`).join(' ');
    const child = spawn('sh', ['-c', tail.replace('CLI', quoted)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d) => (stderr += d));
    return new Promise((done) => child.on('close', (code) => done({ code, stdout: Buffer.concat(out), stderr })));
  }

  it('a reader that goes away early: exit 0, nothing on stderr', async () => {
    // the read end closed before the command writes
    const child = spawn(process.execPath, [bin, 'run', met, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const closed = new Promise<number | null>((done) => child.on('close', done));
    // `| head -c 100` over an output longer than the pipe holds: the CLI's exit code and stderr kept
    const runs = [['run', big, '--json'], ['run', ...many, '--workers', '1']].map((args, i) => {
      const errFile = join(tmp, `head${i}.err`), codeFile = join(tmp, `head${i}.code`);
      return sh(args, `{ CLI 2>'${errFile}'; echo $? >'${codeFile}'; } | head -c 100`).then((r) => ({ r, args, errFile, codeFile }));
    });
    expect(await closed).toBe(0);
    expect(stderr).toBe('');
    for (const { r, args, errFile, codeFile } of await Promise.all(runs)) {
      expect(r.stdout.length).toBe(100); // bytes
      expect(readFileSync(errFile, 'utf8'), args.join(' ')).toBe('');
      expect(readFileSync(codeFile, 'utf8').trim(), args.join(' ')).toBe('0');
    }
  });

  it('a full device: exit 1 and one line on stderr', async () => {
    const runs = [['run', met, '--json'], ['run', met, met, '--workers', '1']].map((args) => sh(args, 'CLI > /dev/full'));
    for (const r of await Promise.all(runs)) {
      expect(r.code).toBe(1);
      expect(r.stderr).toBe('physik: cannot write to standard output: no space left on the device\n');
    }
  });
});
