/**
 * The command line's recording and import: `physik record` writes .glb, .bvh and .json that
 * load back with the same frames, and `physik import` turns each external rig (two glTF
 * figures, a CMU walk, the classic BVH example) into a scene file that poses with its two
 * control points, records and exports. Bad files and arguments exit 1 / 2 with a message.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli as run } from '../../support/cli';
import { recordingFromJson } from '../../../src/io/recordingJson';
import { parseSceneText } from '../../../src/scene/load';

const tmp = mkdtempSync(join(tmpdir(), 'physik-cli-io-'));
const scenes = join(__dirname, '../../../scenes');
const fixtures = join(__dirname, '../../fixtures/external');

describe('physik record', () => {
  it('writes the same frames as .json, .bvh and .glb', async () => {
    const r = await Promise.all(['json', 'bvh', 'glb'].map((ext) =>
      run(['record', join(scenes, 'humanoid.json'), '--steps', '60', '--fps', '20', '--out', join(tmp, `h.${ext}`)])));
    for (const x of r) expect(x.code, x.err).toBe(0);
    expect(r[0]!.out).toMatch(/61 frames at 20 fps/);
    const rec = recordingFromJson(readFileSync(join(tmp, 'h.json'), 'utf8'));
    expect(rec.frameCount).toBe(61);
    expect(rec.bones.map((b) => b.name)).toContain('hand.R');
    const bvh = readFileSync(join(tmp, 'h.bvh'), 'utf8');
    expect(bvh).toMatch(/Frames: 61/);
    const glb = readFileSync(join(tmp, 'h.glb'));
    expect(glb.subarray(0, 4).toString('latin1')).toBe('glTF');
  });

  it('refuses bad arguments (exit 2) and names them', async () => {
    const f = join(scenes, 'elbow.json');
    expect((await run(['record', f])).err).toMatch(/missing --out/);
    expect((await run(['record', f, '--out', join(tmp, 'x.fbx')])).err).toMatch(/record writes \.glb, \.bvh, \.json/);
    const bad = await run(['record', f, '--fps', '0', '--out', join(tmp, 'x.glb')]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--fps expects a number in \(0, 1000\], got "0"/);
  });
});

describe('physik import', () => {
  // one bone per joint of the file
  it.each([
    ['bvhio_example.bvh', 18],
    ['cmu_subject02_walk_delfem2.bvh', 31],
    ['RiggedSimple.glb', 2],
    ['RiggedFigure.glb', 19],
  ])('%s: a scene file that poses with two control points, records and exports', async (file, bones) => {
    const sceneFile = join(tmp, `${file}.json`);
    const r = await run(['import', join(fixtures, file), '--out', sceneFile]);
    expect(r.code, r.err).toBe(0);
    const scene = parseSceneText(readFileSync(sceneFile, 'utf8'), sceneFile);
    expect(scene.rig.bones).toHaveLength(bones);
    expect(scene.controlPoints).toHaveLength(2);
    // pose: the user's edit of the saved scene moves both targets a tenth of the figure's height
    const json = JSON.parse(readFileSync(sceneFile, 'utf8'));
    const heights = await run(['run', sceneFile, '--steps', '1', '--json']);
    const height = JSON.parse(heights.out).height as number;
    const pose = JSON.parse(heights.out).pose as Record<string, { head: number[]; tail: number[] }>;
    json.controlPoints = json.controlPoints.map((c: { bone: string; at?: number }) => {
      const p = pose[c.bone]!;
      const at = c.at ?? 1;
      const base = p.head.map((h, i) => h + at * (p.tail[i]! - h));
      return { ...c, target: [base[0], base[1]! + 0.1 * height, base[2]] };
    });
    writeFileSync(sceneFile, JSON.stringify(json));
    const ran = JSON.parse((await run(['run', sceneFile, '--steps', '400', '--json'])).out);
    expect(ran.finite).toBe(true);
    expect(ran.maxTargetError).toBeLessThan(0.05 * height);
    for (const ext of ['glb', 'bvh']) {
      const out = join(tmp, `${file}.${ext}`);
      const rec = await run(['record', sceneFile, '--steps', '100', '--out', out]);
      expect(rec.code, rec.err).toBe(0);
      expect(readFileSync(out).byteLength).toBeGreaterThan(1000);
    }
  });

  it('a truncated or foreign file exits 1 with the file and the problem named', async () => {
    const glb = readFileSync(join(fixtures, 'RiggedFigure.glb'));
    const cut = join(tmp, 'cut.glb');
    writeFileSync(cut, glb.subarray(0, 20000));
    const a = await run(['import', cut, '--out', join(tmp, 'cut.json')]);
    expect(a.code).toBe(1);
    expect(a.err).toMatch(/cut\.glb: truncated: header says 49532 bytes, got 20000/);
    const bvh = join(tmp, 'cut.bvh');
    writeFileSync(bvh, readFileSync(join(fixtures, 'bvhio_example.bvh'), 'utf8').slice(0, 600));
    const b = await run(['import', bvh, '--out', join(tmp, 'cut2.json')]);
    expect(b.code).toBe(1);
    expect(b.err).toMatch(/cut\.bvh: .*HIERARCHY/);
    expect((await run(['import', join(tmp, 'x.obj'), '--out', join(tmp, 'y.json')])).code).toBe(2);
    expect((await run(['import', join(tmp, 'absent.bvh'), '--out', join(tmp, 'y.json')])).err).toMatch(/absent\.bvh: file not found/);
  });
});
