/**
 * Files the command line writes: an --out that is an input of the same command (by any name:
 * the same path spelled differently, a symbolic or hard link) is refused before anything is
 * read or written, and every output is written atomically (src/io/atomicWrite.ts): a write
 * that fails part way (a failing writer, the process's file size limit) leaves the old file
 * byte for byte as it was and no temporary file beside it.
 */
import { describe, expect, it } from 'vitest';
import { linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, chmodSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { runCli as cli } from '../../support/cli';
import { writeFileAtomic } from '../../../src/io/atomicWrite';

const root = join(__dirname, '../../..');
const tmp = mkdtempSync(join(tmpdir(), 'physik-cli-writes-'));
const bone = (name: string, parent: string | null, extra: Record<string, unknown> = {}) => ({ name, parent, direction: [0, 1, 0], length: 1, ...extra });
const sceneText = JSON.stringify({
  name: 'arm',
  rig: { name: 'arm', bones: [bone('upper', null), bone('lower', 'upper', { direction: [1, 0, 0], length: 0.8 })] },
  controlPoints: [{ name: 'hand', bone: 'lower', target: [1, 1, 0] }],
  settings: { dt: 0.02 },
});
const bvhText = `HIERARCHY
ROOT hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT spine
  {
    OFFSET 0 1 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0 1 0
    }
  }
}
MOTION
Frames: 1
Frame Time: 0.033333
0 0 0 0 0 0 0 0 0
`;

/** Names in `dir` other than `keep`: temporary files left behind. */
const leftovers = (dir: string, keep: string[]) => readdirSync(dir).filter((f) => !keep.includes(f));

describe('an output that is an input', () => {
  it('record refuses to write over its scene, by any name (exit 2), and leaves it as it was', async () => {
    const dir = join(tmp, 'same');
    mkdirSync(dir);
    const scene = join(dir, 's.json');
    writeFileSync(scene, sceneText);
    symlinkSync(scene, join(dir, 'link.json'));
    linkSync(scene, join(dir, 'hard.json'));
    for (const out of [scene, join(dir, '..', 'same', './s.json'), join(dir, 'link.json'), join(dir, 'hard.json')]) {
      const r = await cli(['record', scene, '--steps', '5', '--out', out]);
      expect(r.code, out).toBe(2);
      expect(r.err).toContain(`--out ${out} is ${scene}, the file record reads: it would be overwritten`);
      expect(readFileSync(scene, 'utf8')).toBe(sceneText);
    }
    // the scene read through the link: the same file
    const viaLink = await cli(['record', join(dir, 'link.json'), '--steps', '5', '--out', scene]);
    expect(viaLink.code).toBe(2);
    expect(readFileSync(scene, 'utf8')).toBe(sceneText);
    // another file is fine
    expect((await cli(['record', scene, '--steps', '5', '--out', join(dir, 'rec.json')])).code).toBe(0);
  });

  it('import refuses an --out that is the file it imports', async () => {
    const dir = join(tmp, 'import');
    mkdirSync(dir);
    const rig = join(dir, 'rig.bvh');
    writeFileSync(rig, bvhText);
    symlinkSync(rig, join(dir, 'rig.json'));
    const r = await cli(['import', rig, '--out', join(dir, 'rig.json')]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('the file import reads');
    expect(readFileSync(rig, 'utf8')).toBe(bvhText);
    expect((await cli(['import', rig, '--out', join(dir, 'scene.json')])).code).toBe(0);
  });
});

describe('atomic writes', () => {
  it('a write that fails part way leaves the old file and no temporary file', () => {
    const dir = join(tmp, 'atomic');
    mkdirSync(dir);
    const target = join(dir, 'out.json');
    writeFileSync(target, 'old contents');
    const half = (fd: number, data: Uint8Array) => {
      writeSync(fd, data, 0, data.byteLength >> 1);
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    };
    expect(() => writeFileAtomic(target, 'x'.repeat(100_000), half)).toThrow(`cannot write ${target}: no space left on the device (the file is unchanged)`);
    expect(readFileSync(target, 'utf8')).toBe('old contents');
    expect(leftovers(dir, ['out.json'])).toEqual([]);
    // a new file that fails is not left half written either
    expect(() => writeFileAtomic(join(dir, 'new.json'), 'y'.repeat(1000), half)).toThrow(/cannot write .*new\.json: no space left on the device$/);
    expect(leftovers(dir, ['out.json'])).toEqual([]);
  });

  it('a write that succeeds replaces the file whole, keeps its mode, and writes through a link', () => {
    const dir = join(tmp, 'atomic-ok');
    mkdirSync(dir);
    const target = join(dir, 'out.bvh');
    writeFileSync(target, 'old');
    chmodSync(target, 0o640);
    writeFileAtomic(target, new Uint8Array([1, 2, 3]));
    expect([...readFileSync(target)]).toEqual([1, 2, 3]);
    expect(statSync(target).mode & 0o777).toBe(0o640);
    symlinkSync(target, join(dir, 'link.bvh'));
    writeFileAtomic(join(dir, 'link.bvh'), 'new');
    expect(readFileSync(target, 'utf8')).toBe('new');
    expect(statSync(join(dir, 'link.bvh')).isFile()).toBe(true);
    expect(leftovers(dir, ['out.bvh', 'link.bvh'])).toEqual([]);
    // a directory in the way: refused, nothing left
    mkdirSync(join(dir, 'taken.json'));
    expect(() => writeFileAtomic(join(dir, 'taken.json'), 'z')).toThrow(/cannot write .*taken\.json/);
    expect(leftovers(dir, ['out.bvh', 'link.bvh', 'taken.json'])).toEqual([]);
  });

  it('record over the file size limit: exit 1, the old recording byte-identical, no temporary file', () => {
    const dir = join(tmp, 'fsize');
    mkdirSync(dir);
    const scene = join(dir, 's.json');
    writeFileSync(scene, sceneText);
    const target = join(dir, 'rec.json');
    const old = Buffer.from('{"previous":"recording"}\n');
    writeFileSync(target, old);
    // a limit of 1-2 MB on the files the process writes (ulimit -f counts 512- or 1024-byte
    // blocks); the recording is about 6 MB: 20001 frames of 2 bones at 1000 fps
    const r = spawnSync('sh', ['-c', 'ulimit -f 2048 && exec "$0" "$@"', process.execPath, join(root, 'bin/physik.mjs'),
      'record', scene, '--steps', '1000', '--fps', '1000', '--out', target], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain(`cannot write ${target}: over the file size limit (the file is unchanged)`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(readFileSync(target).equals(old)).toBe(true);
    expect(leftovers(dir, ['s.json', 'rec.json'])).toEqual([]);
  });
});
