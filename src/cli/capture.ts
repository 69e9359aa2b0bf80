/**
 * `physik capture <rig.glb|.gltf|.bvh> [--clip NAME] [--markers A,B,…] [--drive A,B,…|all]
 * [--stiffness S] [--damping-ratio Z] --out <file.glb|.bvh|.json>`: physics on top of motion
 * from the command line. The file's skeleton is imported as `physik import` does (the humanoid
 * template's limits included), its motion (a BVH's MOTION, a glTF's animation: the one named by
 * --clip, else the first) plays on it with world markers at the heads of the --markers bones
 * and pose drives on the --drive joints, every other joint free, and the result is written at
 * the clip's frame rate: onto the source file's own skeleton when the output is of its kind
 * (a .bvh onto a .bvh, a .glb onto a .glb: the source with one more animation), else as the
 * rig's own skeleton (the generated bone mesh), or the lossless JSON recording. Prints each
 * marker's stray from the clip (max and mean ÷ the rig's height), the largest difference of a
 * free bone, the largest limit violation, the limits widened to the clip's range (where the
 * clip itself goes past the template's: src/capture/limits.ts), and the time taken. Exit 0 done, 1 an unreadable file or a failed write, 2 bad
 * arguments (an unknown bone is an argument error: the message lists the rig's bones).
 */
import { commandSpec, loadOptional, readOptions, UsageError } from './options';
import { readInputFile } from '../scene/loadFile';
import { writeFileAtomic } from '../io/atomicWrite';
import { ImportError } from '../io/skeleton';
import { SceneError } from '../scene/load';
import { RecordingError, recordingToJson } from '../io/recordingJson';
import { recordingToBvh } from '../io/bvhExport';
import { importBvh } from '../io/bvhImport';
import { recordingToSourceBvh } from '../io/bvhSource';
import { addRig, createPhysikWorld } from '../core';
import { findRig } from '../world/world';
import type { CaptureMarkerDescription, Scene } from '../world/types';
import { dropReferenceFrame, motionFromBvh, type SourceMotion } from '../capture/source';
import { bindClip } from '../capture/bind';
import { attachClip, captureClip, captureSettings, DEFAULT_CAPTURE_STIFFNESS } from '../capture/capture';
import { describeWidened } from '../capture/limits';

const extOf = (f: string) => (/\.[^./\\]+$/.exec(f)?.[0] ?? '').toLowerCase();
const inputKinds = ['.glb', '.gltf', '.bvh'];
const outputKinds = ['.glb', '.bvh', '.json'];
/** Largest input read (a .glb with meshes and textures may be large). */
const MAX_INPUT = 512 * 1024 * 1024;

export interface CaptureArgs {
  file: string;
  out: string;
  clip?: string;
  markers: string[];
  drive: string[] | 'all';
  stiffness: number;
  dampingRatio: number;
}

/** Bone names from `A,B,…` (no empty names, none twice). */
function nameList(option: string, v: string | true | undefined): string[] {
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${option} expects bone names separated by commas, got ${v === undefined || v === true ? 'nothing' : `"${v}"`}`);
  const names = v.split(',').map((s) => s.trim());
  if (names.some((n) => n === '')) throw new UsageError(`--${option} "${v}": an empty bone name (two commas in a row, or one at an end)`);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new UsageError(`--${option}: "${twice}" is listed twice`);
  return names;
}

function numberOption(option: string, given: boolean, v: string | true | undefined, min: number, exclusive: boolean, max: number, fallback: number): number {
  if (!given) return fallback;
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (!(Number.isFinite(n) && (exclusive ? n > min : n >= min) && n <= max)) {
    throw new UsageError(`--${option} expects a number ${exclusive ? '>' : '>='} ${min} and <= ${max}, got ${typeof v === 'string' ? `"${v}"` : 'nothing'}`);
  }
  return n;
}

/** The command's arguments, checked (UsageError: exit 2). */
export function parseCaptureArgs(argv: readonly string[]): CaptureArgs {
  const spec = commandSpec('capture')!;
  const { values, positionals } = readOptions(spec, argv);
  if (positionals.length === 0) throw new UsageError(`capture: missing <rig.glb|.gltf|.bvh>\nusage: physik capture ${spec.args}`);
  if (positionals.length > 1) throw new UsageError(`capture: unexpected argument "${positionals[1]}" (one rig file per call)`);
  const file = positionals[0]!;
  if (!inputKinds.includes(extOf(file))) throw new UsageError(`capture reads ${inputKinds.join(', ')} files (by extension), got ${file}`);
  const out = values.get('out');
  if (!values.has('out')) throw new UsageError(`capture: missing --out <file.glb|.bvh|.json>\nusage: physik capture ${spec.args}`);
  if (typeof out !== 'string' || out === '' || out.startsWith('-')) throw new UsageError(`--out expects a file name, got ${typeof out === 'string' ? `"${out}"` : 'nothing'}`);
  if (!outputKinds.includes(extOf(out))) throw new UsageError(`--out ${out}: capture writes ${outputKinds.join(', ')} files (by extension)`);
  const clip = values.get('clip');
  if (values.has('clip') && (typeof clip !== 'string' || clip === '')) throw new UsageError('--clip expects an animation name, got nothing');
  if (typeof clip === 'string' && extOf(file) === '.bvh') throw new UsageError(`--clip "${clip}": a BVH file holds one motion; --clip names one of a glTF's animations`);
  const markers = values.has('markers') ? nameList('markers', values.get('markers')) : [];
  const driveValue = values.get('drive');
  const drive = values.has('drive') ? (driveValue === 'all' ? 'all' : nameList('drive', driveValue)) : [];
  if (markers.length === 0 && drive !== 'all' && drive.length === 0) {
    throw new UsageError('capture: nothing ties the rig to the clip: give --markers (bones whose heads follow the clip) and/or --drive (joints driven toward it, or all)');
  }
  return {
    file, out, ...(typeof clip === 'string' ? { clip } : {}), markers, drive,
    stiffness: numberOption('stiffness', values.has('stiffness'), values.get('stiffness'), 0, true, 1e9, DEFAULT_CAPTURE_STIFFNESS),
    dampingRatio: numberOption('damping-ratio', values.has('damping-ratio'), values.get('damping-ratio'), 0, false, 100, 1),
  };
}

function fixed(v: number): string {
  return Math.abs(v) >= 1e-3 || v === 0 ? v.toFixed(4) : v.toExponential(2);
}

/** Run `physik capture`: the exit code. */
export async function captureCommand(argv: readonly string[], out: (s: string) => void, err: (s: string) => void): Promise<number> {
  try {
    const args = parseCaptureArgs(argv);
    const kind = extOf(args.file);
    let bytes: Buffer;
    try {
      bytes = readInputFile(args.file, MAX_INPUT);
    } catch (e) {
      throw new ImportError(args.file, (e as Error).message);
    }
    // the rig and its clip, from the same file
    let scene: Scene;
    let source: SourceMotion;
    const notes: string[] = [];
    if (kind === '.bvh') {
      const text = bytes.toString('utf8');
      const imported = importBvh(text, args.file, { motion: false });
      scene = imported.scene;
      notes.push(...imported.warnings);
      source = motionFromBvh(text, args.file);
    } else {
      const gltf = await loadOptional(() => import('../io/gltfImport'), 'three', 'reading glTF');
      const data = kind === '.gltf' ? bytes.toString('utf8') : new Uint8Array(bytes);
      const imported = await gltf.importGltf(data, args.file);
      scene = imported.scene;
      notes.push(...imported.warnings);
      const { motionFromGltf } = await loadOptional(() => import('../capture/gltfMotion'), 'three', 'reading glTF animations');
      const { readFileSync } = await import('node:fs');
      const { dirname, join } = await import('node:path');
      source = await motionFromGltf(data, args.file, { clip: args.clip, readResource: (uri) => new Uint8Array(readFileSync(join(dirname(args.file), decodeURIComponent(uri)))) });
    }
    source = dropReferenceFrame(source);
    notes.push(...source.notes);
    const boneNames = scene.rig.bones.map((b) => b.name);
    const known = () => `the rig's bones: ${boneNames.slice(0, 40).join(', ')}${boneNames.length > 40 ? ', ...' : ''}`;
    for (const [option, list] of [['markers', args.markers], ['drive', args.drive === 'all' ? [] : args.drive]] as const) {
      for (const name of list) if (!boneNames.includes(name)) throw new UsageError(`--${option}: no bone "${name}" in ${args.file} (${known()})`);
    }
    const markers: CaptureMarkerDescription[] = args.markers.map((bone) => ({ name: bone, kind: 'world', bones: [bone] }));
    const drive = args.drive === 'all' ? boneNames : args.drive;
    if (drive.length) markers.push({ name: 'drive', kind: 'pose', bones: drive });

    const world = createPhysikWorld();
    const { rig } = addRig(world, { rig: scene.rig, settings: captureSettings(source.fps) });
    const bound = bindClip(world, rig, source);
    notes.push(...bound.notes);
    const handle = attachClip(world, rig, bound.track, { markers, stiffness: args.stiffness, dampingRatio: args.dampingRatio });
    const result = captureClip(world, handle);
    const rec = result.recording;
    // the output: onto the source file when it is of the same kind
    const outKind = extOf(args.out);
    let data: string | Uint8Array;
    let onto = 'the rig';
    if (outKind === '.json') data = recordingToJson(rec);
    else if (outKind === '.bvh' && kind === '.bvh') { data = recordingToSourceBvh(bytes.toString('utf8'), rec, { file: args.file }); onto = 'the source skeleton'; }
    else if (outKind === '.bvh') data = recordingToBvh(rec);
    else if (kind === '.glb') {
      const { recordingToSourceGlb } = await loadOptional(() => import('../io/gltfSource'), 'three', 'writing .glb');
      data = new Uint8Array(await recordingToSourceGlb(new Uint8Array(bytes), rec, { file: args.file }));
      onto = 'the source file';
    } else {
      const { recordingToGlb } = await loadOptional(() => import('../io/gltfExport'), 'three', 'writing .glb');
      data = new Uint8Array(await recordingToGlb(rec));
    }
    writeFileAtomic(args.out, data);
    const st = result.stats;
    const height = world.physik.Rig.height[rig]!;
    const record = findRig(world, rig);
    out(`${args.out}: ${rec.frameCount} frames at ${Number(rec.fps.toFixed(3))} fps (${(rec.times[rec.frameCount - 1] ?? 0).toFixed(2)} s of "${source.name}") onto ${onto}, ${record.bones.length} bones`);
    out(`  time              ${result.seconds.toFixed(3)} s, ${result.realTimeRate.toFixed(0)}× real time`);
    out(`  stiffness         ${args.stiffness} /s², damping ratio ${args.dampingRatio}; rig height ${fixed(height)}`);
    if (st.markers.length) {
      out('  marker stray      (÷ height)       max        mean');
      for (const m of st.markers) out(`    ${m.bone.padEnd(24)}${fixed(m.max).padStart(10)}  ${fixed(m.mean).padStart(10)}`);
    }
    if (drive.length) out(`  pose drives       ${drive.length === boneNames.length ? 'every joint' : drive.join(', ')}`);
    out(`  free bones        largest difference from the clip ${fixed(st.free.max)} × height${st.free.bone ? ` (${st.free.bone})` : ''}`);
    out(`  limit violation   ${fixed(st.maxLimitViolationDeg)} deg (against the limits as widened below); finite ${st.finite}`);
    if (handle.widenedLimits.length) {
      out('  limits widened to the clip\'s range (the clip itself goes past them; degrees):');
      for (const line of describeWidened(handle.widenedLimits)) out(`    ${line}`);
    }
    for (const n of [...notes, ...handle.notes]) out(`  note: ${n}`);
    return st.finite ? 0 : 1;
  } catch (e) {
    if (e instanceof UsageError) { err(e.message); return 2; }
    if (e instanceof SceneError || e instanceof ImportError || e instanceof RecordingError) { err(e.message); return 1; }
    err(`physik: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
}
