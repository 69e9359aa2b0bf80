/**
 * A recording back onto the character it was imported from: the source .glb unchanged (its
 * nodes, meshes, skins, materials, textures, extensions and other animations, byte for byte in
 * the binary chunk) plus one new animation, the recording, whose channels target the source's
 * own joint nodes. Blender, game engines and three.js play it on the character's own mesh.
 *
 * The mapping (sourcePose.ts, which the view's skinned character shares): the import keeps one
 * bone per skin joint with every joint where the file has it, so bone i turned from rest by
 * D = R·R₀⁻¹ turns its joint node the same way; each node's rotation track holds that
 * relative to its parent node, and the root joint's translation track the recorded root head in
 * its parent's frame. Other joints keep their rest translation and scale, so skinned vertices
 * follow the recorded pose.
 *
 * The file: accessors (float32 times, VEC4 rotations, VEC3 translation) in new buffer views
 * appended to the binary chunk after the source's data, padded to 4 bytes; every index the
 * source uses stays valid. Times are frame / fps from 0, linear interpolation, quaternion signs
 * made continuous between keys.
 *
 * Limits: binary glTF (.glb) only (a .gltf with external buffers would need them written
 * alongside; import and save it as .glb first); node rotations come from decomposed world
 * matrices, so a joint under a non-uniform scale that shears gets the nearest rotation; a
 * recording's bones must be the imported rig's (the names of `importGltf`'s joints).
 */
import { importGltf, readGltfJson, type GltfImportOptions } from './gltfImport';
import { ImportError } from './skeleton';
import { createSourcePoser } from './sourcePose';
import { assertExportable } from './bvhExport';
import type { Recording } from './recording';

export interface SourceGlbOptions {
  /** Name of the new animation (default "<rig> (PhysIK)"; made unique among the file's). */
  clipName?: string;
  /** The import's joints (`GltfImport.joints`); default: imported again from the source. */
  joints?: readonly { name: string; node: number }[];
  /** The options the character was imported with (scale, up), when `joints` is not given. */
  importOptions?: GltfImportOptions;
  /** File name for error messages. */
  file?: string;
  /**
   * Rescale skin weights that do not sum to 1 (default true): the one change made to the
   * source's data, since the glTF specification requires the sum and the Khronos validator
   * reports each such vertex as an error (three.js normalises them when it loads the file, so
   * they play the same). Each repaired vertex's weights keep their proportions.
   */
  repairWeights?: boolean;
  /** Told what was repaired ("12 vertices of mesh 0 ..."), when anything was. */
  onNote?: (note: string) => void;
}

type Json = Record<string, unknown>;
const GLB_MAGIC = 0x46546c67;
const CHUNK_JSON = 0x4e4f534a;
const CHUNK_BIN = 0x004e4942;

/** The source's JSON and binary chunk (empty when it has none). */
function splitGlb(bytes: Uint8Array, file: string | undefined): { json: Json; bin: Uint8Array } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 20 || view.getUint32(0, true) !== GLB_MAGIC) {
    throw new ImportError(file, 'the source must be a binary glTF (.glb) to export onto it (a .gltf can be saved as .glb first)');
  }
  const json = readGltfJson(bytes, file);
  const jsonLength = view.getUint32(12, true);
  let at = 20 + jsonLength;
  const total = Math.min(view.getUint32(8, true), bytes.byteLength);
  let bin: Uint8Array = new Uint8Array(0);
  while (at + 8 <= total) {
    const length = view.getUint32(at, true), type = view.getUint32(at + 4, true);
    if (at + 8 + length > total) throw new ImportError(file, `truncated: a GLB chunk at byte ${at} says ${length} bytes, the file has ${total - at - 8} after its header`);
    if (type === CHUNK_BIN) { bin = bytes.subarray(at + 8, at + 8 + length); break; }
    at += 8 + length;
  }
  return { json, bin };
}

/** The source .glb with the recording added as a new animation on its own joint nodes. */
export async function recordingToSourceGlb(source: ArrayBuffer | Uint8Array, rec: Recording, options: SourceGlbOptions = {}): Promise<ArrayBuffer> {
  assertExportable(rec);
  const file = options.file;
  const bytes = source instanceof Uint8Array ? source : new Uint8Array(source);
  const { json, bin } = splitGlb(bytes, file);
  const imported = options.joints ? undefined : await importGltf(bytes, file, options.importOptions ?? {});
  const joints = options.joints ?? imported!.joints;
  const poser = createSourcePoser(json, joints, rec.bones, { scale: options.importOptions?.scale, up: options.importOptions?.up === 'z' ? 'z' : 'y', what: `recording of "${rec.rig}"`, file });
  const boneNode = Array.from(poser.nodes);
  const rootBone = poser.rootBone;
  const n = rec.bones.length;
  const frames = rec.frameCount;
  const times = new Float32Array(frames);
  for (let f = 0; f < frames; f++) times[f] = f / rec.fps;
  const rotations = boneNode.map(() => new Float32Array(frames * 4));
  const translation = new Float32Array(frames * 3);
  const local = new Float64Array(n * 4), t = new Float64Array(3);
  for (let f = 0; f < frames; f++) {
    poser.pose(rec.rotations.subarray(f * n * 4, (f + 1) * n * 4), rec.heads.subarray((f * n + rootBone) * 3, (f * n + rootBone) * 3 + 3), local, t);
    for (let i = 0; i < n; i++) {
      const out = rotations[i]!, o = f * 4;
      // signs continuous between keys, so a player's slerp takes the short way
      const flip = f > 0 && local[i * 4]! * out[o - 4]! + local[i * 4 + 1]! * out[o - 3]! + local[i * 4 + 2]! * out[o - 2]! + local[i * 4 + 3]! * out[o - 1]! < 0 ? -1 : 1;
      for (let k = 0; k < 4; k++) out[o + k] = flip * local[i * 4 + k]!;
    }
    translation.set(t, f * 3);
  }

  // the new binary data after the source's, each block 4-byte aligned
  const blocks: { data: Float32Array; type: string; min?: number[]; max?: number[] }[] = [];
  blocks.push({ data: times, type: 'SCALAR', min: [times[0]!], max: [times[frames - 1]!] });
  for (const r of rotations) blocks.push({ data: r, type: 'VEC4' });
  blocks.push({ data: translation, type: 'VEC3' });
  const start = (bin.byteLength + 3) & ~3;
  let size = start;
  for (const b of blocks) size += b.data.byteLength;
  const newBin = new Uint8Array(size);
  newBin.set(bin, 0);
  if (options.repairWeights ?? true) {
    const repaired = normaliseWeights(json, newBin);
    if (repaired.length) options.onNote?.(`skin weights rescaled to sum to 1 (the file had other sums): ${repaired.join(', ')}`);
  }
  const buffers = (json.buffers ?? []) as Json[];
  if (buffers.length > 0 && buffers[0]!.uri !== undefined) {
    throw new ImportError(file, 'buffer 0 of this .glb refers to an external file; the recording is written into the GLB binary chunk, which must be buffer 0');
  }
  if (buffers.length === 0) buffers.push({ byteLength: 0 });
  buffers[0]!.byteLength = size;
  json.buffers = buffers;
  const bufferViews = (json.bufferViews ?? []) as Json[];
  const accessors = (json.accessors ?? []) as Json[];
  json.bufferViews = bufferViews;
  json.accessors = accessors;
  const accessorOf: number[] = [];
  let at = start;
  for (const b of blocks) {
    new Uint8Array(newBin.buffer, at, b.data.byteLength).set(new Uint8Array(b.data.buffer, b.data.byteOffset, b.data.byteLength));
    bufferViews.push({ buffer: 0, byteOffset: at, byteLength: b.data.byteLength });
    const acc: Json = { bufferView: bufferViews.length - 1, componentType: 5126, count: frames, type: b.type };
    if (b.min) { acc.min = b.min; acc.max = b.max; }
    accessors.push(acc);
    accessorOf.push(accessors.length - 1);
    at += b.data.byteLength;
  }
  const animations = (json.animations ?? []) as Json[];
  json.animations = animations;
  const taken = new Set(animations.map((a) => a.name));
  const base = options.clipName ?? `${rec.rig} (PhysIK)`;
  let name = base;
  for (let k = 2; taken.has(name); k++) name = `${base} ${k}`;
  const samplers: Json[] = [];
  const channels: Json[] = [];
  boneNode.forEach((node, i) => {
    samplers.push({ input: accessorOf[0], output: accessorOf[1 + i], interpolation: 'LINEAR' });
    channels.push({ sampler: samplers.length - 1, target: { node, path: 'rotation' } });
  });
  samplers.push({ input: accessorOf[0], output: accessorOf[1 + n], interpolation: 'LINEAR' });
  channels.push({ sampler: samplers.length - 1, target: { node: boneNode[rootBone], path: 'translation' } });
  animations.push({ name, channels, samplers });

  return writeGlb(json, newBin);
}

/**
 * Rescale, in `bin` (buffer 0), every WEIGHTS_n set whose sum per vertex is off 1 by more
 * than float32 rounding; float and normalised unsigned byte/short weights. Returns what it
 * changed ("mesh 0 primitive 0: 31 vertices").
 */
function normaliseWeights(json: Json, bin: Uint8Array): string[] {
  const accessors = (json.accessors ?? []) as Json[];
  const views = (json.bufferViews ?? []) as Json[];
  const done = new Set<string>();
  const out: string[] = [];
  const data = new DataView(bin.buffer, bin.byteOffset, bin.byteLength);
  ((json.meshes ?? []) as Json[]).forEach((mesh, mi) => {
    ((mesh.primitives ?? []) as Json[]).forEach((prim, pi) => {
      const attrs = (prim.attributes ?? {}) as Record<string, number>;
      const sets = Object.keys(attrs).filter((k) => /^WEIGHTS_\d+$/.test(k)).map((k) => attrs[k]!);
      const key = sets.join(',');
      if (sets.length === 0 || done.has(key)) return;
      done.add(key);
      // readers and writers for each set's elements, or give up on this primitive
      const io = sets.map((a) => {
        const acc = accessors[a];
        const view = acc && typeof acc.bufferView === 'number' ? views[acc.bufferView] : undefined;
        if (!acc || !view || (view.buffer ?? 0) !== 0 || acc.sparse || acc.type !== 'VEC4') return undefined;
        const ct = acc.componentType as number;
        const size = ct === 5126 ? 4 : ct === 5123 ? 2 : ct === 5121 ? 1 : 0;
        if (!size || (ct !== 5126 && !acc.normalized)) return undefined;
        const stride = (view.byteStride as number | undefined) ?? size * 4;
        const base = ((view.byteOffset as number | undefined) ?? 0) + ((acc.byteOffset as number | undefined) ?? 0);
        const max = ct === 5123 ? 65535 : 255;
        const at = (v: number, c: number) => base + v * stride + c * size;
        return {
          count: acc.count as number,
          get: (v: number, c: number) => (ct === 5126 ? data.getFloat32(at(v, c), true) : ct === 5123 ? data.getUint16(at(v, c), true) / max : data.getUint8(at(v, c)) / max),
          set: (v: number, c: number, x: number) => (ct === 5126 ? data.setFloat32(at(v, c), x, true)
            : ct === 5123 ? data.setUint16(at(v, c), Math.round(x * max), true)
              : data.setUint8(at(v, c), Math.round(x * max))),
          float: ct === 5126,
        };
      });
      if (io.some((x) => !x) || io.some((x) => x!.count !== io[0]!.count)) return;
      let fixed = 0;
      for (let v = 0; v < io[0]!.count; v++) {
        let sum = 0;
        for (const s of io) for (let c = 0; c < 4; c++) sum += s!.get(v, c);
        const tol = io.every((s) => s!.float) ? 2e-7 * 4 * io.length : 0.5 / 255 * 4 * io.length;
        if (!(sum > 0) || Math.abs(sum - 1) <= tol) continue;
        for (const s of io) for (let c = 0; c < 4; c++) s!.set(v, c, s!.get(v, c) / sum);
        fixed++;
      }
      if (!fixed) return;
      out.push(`mesh ${mi} primitive ${pi}: ${fixed} vertices`);
      // the declared bounds follow the data (raw stored values: float32, or the integers)
      sets.forEach((a, k) => {
        const acc = accessors[a]!, s = io[k]!;
        if (!Array.isArray(acc.min) && !Array.isArray(acc.max)) return;
        const lo = [Infinity, Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity, -Infinity];
        const max = acc.componentType === 5123 ? 65535 : acc.componentType === 5121 ? 255 : 1;
        for (let v = 0; v < s.count; v++) for (let c = 0; c < 4; c++) {
          const x = s.float ? s.get(v, c) : Math.round(s.get(v, c) * max);
          if (x < lo[c]!) lo[c] = x;
          if (x > hi[c]!) hi[c] = x;
        }
        if (Array.isArray(acc.min)) acc.min = lo;
        if (Array.isArray(acc.max)) acc.max = hi;
      });
    });
  });
  return out;
}

/** A GLB from its JSON and binary chunk (each padded to 4 bytes: spaces and zeros). */
export function writeGlb(json: Json, bin: Uint8Array): ArrayBuffer {
  const text = new TextEncoder().encode(JSON.stringify(json));
  const jsonPadded = (text.byteLength + 3) & ~3;
  const binPadded = (bin.byteLength + 3) & ~3;
  const total = 12 + 8 + jsonPadded + (bin.byteLength > 0 ? 8 + binPadded : 0);
  const out = new Uint8Array(total);
  const o = new DataView(out.buffer);
  o.setUint32(0, GLB_MAGIC, true);
  o.setUint32(4, 2, true);
  o.setUint32(8, total, true);
  o.setUint32(12, jsonPadded, true);
  o.setUint32(16, CHUNK_JSON, true);
  out.set(text, 20);
  out.fill(0x20, 20 + text.byteLength, 20 + jsonPadded);
  if (bin.byteLength > 0) {
    const b = 20 + jsonPadded;
    o.setUint32(b, binPadded, true);
    o.setUint32(b + 4, CHUNK_BIN, true);
    out.set(bin, b + 8);
  }
  return out.buffer;
}
