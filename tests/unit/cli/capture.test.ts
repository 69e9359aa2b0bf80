/**
 * `physik capture`: the CMU walk with markers written onto its own BVH skeleton and as the JSON
 * recording, a glTF's animation onto the source .glb; the summary names every marker's stray and
 * the time; bad arguments exit 2 naming what is wrong, an unreadable file exits 1, and no file is
 * written then.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli as run } from '../../support/cli';
import { recordingFromJson } from '../../../src/io/recordingJson';
import { readGltfJson } from '../../../src/io/gltfImport';

const tmp = mkdtempSync(join(tmpdir(), 'physik-cli-capture-'));
const fixtures = join(__dirname, '../../fixtures/external');
const walk = join(fixtures, 'cmu_subject02_walk_delfem2.bvh');
const markers = 'Hips,LeftHand,RightHand,LeftFoot,RightFoot';

describe('physik capture', () => {
  it('writes the walk onto its own BVH skeleton and prints each marker\'s stray and the time', async () => {
    const out = join(tmp, 'walk.bvh');
    const r = await run(['capture', walk, '--markers', markers, '--out', out]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/343 frames at 120 fps .* onto the source skeleton, 31 bones/);
    expect(r.out).toMatch(/time\s+[\d.]+ s, \d+× real time/);
    for (const bone of markers.split(',')) expect(r.out).toMatch(new RegExp(`\\n\\s+${bone}\\s+[\\d.e-]+\\s+[\\d.e-]+`));
    expect(r.out).toMatch(/free bones\s+largest difference from the clip [\d.]+ × height \(\w+\)/);
    expect(r.out).toMatch(/limits widened to the clip's range[^\n]*\n(\s+\w+ [xyz] \[.*\n)*\s+LeftForeArm z \[-5, 5\] → \[-5, 36\]/);
    const text = readFileSync(out, 'utf8');
    const source = readFileSync(walk, 'utf8');
    // the source's HIERARCHY as written (its line breaks aside) and its frame time
    const lf = (t: string) => t.replace(/\r\n/g, '\n');
    expect(lf(text.slice(0, text.indexOf('MOTION')))).toBe(lf(source.slice(0, source.indexOf('MOTION'))));
    expect(text).toMatch(/Frame Time:\s*0?\.0083333/);
  });

  it('writes the JSON recording at the clip\'s rate with every joint driven', async () => {
    const out = join(tmp, 'walk.json');
    const r = await run(['capture', walk, '--drive', 'all', '--stiffness', '20000', '--damping-ratio', '0.8', '--out', out]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/pose drives\s+every joint/);
    const rec = recordingFromJson(readFileSync(out, 'utf8'));
    expect(rec.frameCount).toBe(343);
    expect(rec.fps).toBeCloseTo(120, 2);
  });

  it("puts a glTF's animation, captured, back onto the source .glb", async () => {
    const out = join(tmp, 'figure.glb');
    const r = await run(['capture', join(fixtures, 'RiggedFigure.glb'), '--markers', 'node2', '--drive', 'all', '--out', out]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/onto the source file, 19 bones/);
    const json = readGltfJson(new Uint8Array(readFileSync(out)));
    expect((json.animations as unknown[]).length).toBe(2);
    expect((json.meshes as unknown[]).length).toBeGreaterThan(0);
  });

  it('refuses bad arguments with exit 2 and writes nothing', async () => {
    const out = join(tmp, 'never.bvh');
    const cases: [string[], RegExp][] = [
      [['capture', walk, '--markers', 'Hips'], /missing --out/],
      [['capture', '--markers', 'Hips', '--out', out], /missing <rig.glb\|.gltf\|.bvh>/],
      [['capture', walk, '--out', out], /nothing ties the rig to the clip/],
      [['capture', walk, '--markers', 'Hips,Tail', '--out', out], /--markers: no bone "Tail" in .* \(the rig's bones: Hips, LHipJoint/],
      [['capture', walk, '--drive', 'Hips,,Head', '--out', out], /--drive "Hips,,Head": an empty bone name/],
      [['capture', walk, '--markers', 'Hips', '--stiffness', '-5', '--out', out], /--stiffness expects a number > 0/],
      [['capture', walk, '--markers', 'Hips', '--damping-ratio', 'x', '--out', out], /--damping-ratio expects a number >= 0/],
      [['capture', walk, '--markers', 'Hips', '--clip', 'Run', '--out', out], /--clip "Run": a BVH file holds one motion/],
      [['capture', walk, '--markers', 'Hips', '--out', join(tmp, 'x.fbx')], /capture writes .glb, .bvh, .json files/],
      [['capture', walk, '--markers', 'Hips', '--fps', '30', '--out', out], /unknown option "--fps" for capture/],
    ];
    for (const [argv, message] of cases) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err).toMatch(message);
    }
    expect(existsSync(out)).toBe(false);
  });

  it('exits 1 for a file it cannot read, and for a glTF animation that is not there', async () => {
    const missing = await run(['capture', join(tmp, 'nope.bvh'), '--markers', 'Hips', '--out', join(tmp, 'a.bvh')]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/nope\.bvh: file not found/);
    const clip = await run(['capture', join(fixtures, 'RiggedFigure.glb'), '--markers', 'node2', '--clip', 'Run', '--out', join(tmp, 'b.glb')]);
    expect(clip.code).toBe(1);
    expect(clip.err).toMatch(/no animation named "Run" \(the file has: "animation0"\)/);
  });
});
