/**
 * A glTF or GLB animation as a capture clip (SourceMotion, source.ts): one of its animations (by
 * name, or the first), played on the node hierarchy by three.js (its interpolants: LINEAR, STEP
 * and CUBICSPLINE as the file says) and sampled at a frame rate from the keys: the reciprocal of
 * the shortest key interval, rounded, from MIN_GLTF_FPS to MAX_GLTF_FPS. The rest pose is the nodes' own
 * transforms. Apart from source.ts because it needs three.js (an optional peer).
 */
import { AnimationClip, Quaternion, Vector3, type Object3D } from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { importGltf, readGltfJson } from '../io/gltfImport';
import { ImportError } from '../io/skeleton';
import { emptyMotion, MAX_CLIP_FRAMES, type SourceJoint, type SourceMotion } from './source';

/** Highest and lowest frame rates a glTF animation is sampled at. */
export const MAX_GLTF_FPS = 240;
export const MIN_GLTF_FPS = 30;

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** base64 → bytes (Node's Buffer or the browser's atob). */
function fromBase64(text: string): Uint8Array {
  const B = (globalThis as { Buffer?: { from(s: string, enc: string): Uint8Array } }).Buffer;
  if (B) return new Uint8Array(B.from(text, 'base64'));
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** A GLB of the JSON text and the binary chunk. */
function glb(jsonText: string, bin: Uint8Array): ArrayBuffer {
  const json = new TextEncoder().encode(jsonText);
  const jsonLength = json.byteLength + ((4 - (json.byteLength % 4)) % 4);
  const total = 12 + 8 + jsonLength + (bin.byteLength ? 8 + bin.byteLength : 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0x46546c67, true); view.setUint32(4, 2, true); view.setUint32(8, total, true);
  view.setUint32(12, jsonLength, true); view.setUint32(16, 0x4e4f534a, true);
  out.fill(0x20, 20, 20 + jsonLength);
  out.set(json, 20);
  if (bin.byteLength) {
    const at = 20 + jsonLength;
    view.setUint32(at, bin.byteLength, true); view.setUint32(at + 4, 0x004e4942, true);
    out.set(bin, at + 8);
  }
  return out.buffer;
}

/** A GLB's BIN chunk (undefined when it has none). */
function glbBinary(bytes: Uint8Array): Uint8Array | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 20 || view.getUint32(0, true) !== 0x46546c67) return undefined;
  let at = 12;
  while (at + 8 <= bytes.byteLength) {
    const length = view.getUint32(at, true), type = view.getUint32(at + 4, true);
    if (type === 0x004e4942) return bytes.subarray(at + 8, Math.min(bytes.byteLength, at + 8 + length));
    at += 8 + length + ((4 - (length % 4)) % 4);
  }
  return undefined;
}

export interface GltfMotionOptions {
  /** The animation to take, by name (default: the first). */
  clip?: string;
  /** Which skin's joints (default 0), as importGltf takes them. */
  skin?: number;
  /** Reads a buffer a .gltf names by relative URI (external .bin files); without it only embedded buffers. */
  readResource?: (uri: string) => Uint8Array;
}

/**
 * One animation of a glTF or GLB, sampled on the joints `importGltf` takes from the same file
 * (their rig names and bones). Throws ImportError when the file has no animation, no animation
 * of that name (the message lists those it has), or a buffer it cannot read.
 */
export async function motionFromGltf(data: ArrayBuffer | Uint8Array | string, file?: string, options: GltfMotionOptions = {}): Promise<SourceMotion> {
  const fail = (msg: string): never => {
    throw new ImportError(file, msg);
  };
  const json = readGltfJson(data, file);
  const animations = Array.isArray(json.animations) ? (json.animations as unknown[]) : [];
  if (animations.length === 0) fail('no animations: nothing to capture');
  const names = animations.map((a, i) => (isObj(a) && typeof a.name === 'string' && a.name ? a.name : `animation${i}`));
  const which = options.clip === undefined ? 0 : names.indexOf(options.clip);
  if (which < 0) fail(`no animation named "${options.clip}" (the file has: ${names.map((n) => `"${n}"`).join(', ')})`);
  const imported = await importGltf(data, file, { skin: options.skin });

  // only what the motion needs: nodes (transforms), the chosen animation and its buffers; no
  // meshes, materials or images (three.js would try to decode textures)
  const bytes = typeof data === 'string' ? undefined : data instanceof Uint8Array ? data : new Uint8Array(data);
  // every buffer's bytes, joined into one GLB binary chunk (three.js would fetch data: URIs,
  // which Node's three.js cannot: no ProgressEvent)
  const parts = (Array.isArray(json.buffers) ? json.buffers : []).map((b, i): Uint8Array => {
    const uri = isObj(b) ? b.uri : undefined;
    if (typeof uri !== 'string') {
      const bin = bytes ? glbBinary(bytes) : undefined;
      if (!bin) fail(`buffer ${i} has no uri and the file has no GLB binary chunk`);
      return bin!;
    }
    if (uri.startsWith('data:')) {
      const comma = uri.indexOf(',');
      if (comma < 0 || !uri.slice(0, comma).endsWith(';base64')) fail(`buffer ${i}: a data URI that is not base64`);
      return fromBase64(uri.slice(comma + 1));
    }
    if (!options.readResource) fail(`buffer ${i} is the external file "${uri}": pass the .gltf's folder's files (or a .glb)`);
    try {
      return options.readResource!(uri);
    } catch (e) {
      return fail(`buffer ${i} "${uri}": ${e instanceof Error ? e.message : String(e)}`);
    }
  });
  const starts: number[] = [];
  let total = 0;
  for (const part of parts) { starts.push(total); total += part.byteLength + ((4 - (part.byteLength % 4)) % 4); }
  const bin = new Uint8Array(total);
  parts.forEach((part, i) => bin.set(part, starts[i]!));
  const bufferViews = (Array.isArray(json.bufferViews) ? json.bufferViews : []).map((v) => {
    const view = { ...(v as Json) };
    const k = typeof view.buffer === 'number' ? view.buffer : 0;
    view.byteOffset = (typeof view.byteOffset === 'number' ? view.byteOffset : 0) + (starts[k] ?? 0);
    view.buffer = 0;
    return view;
  });
  const nodes = (json.nodes as Json[]).map((nd) => {
    const out: Json = {};
    for (const k of ['name', 'children', 'matrix', 'translation', 'rotation', 'scale']) if (nd[k] !== undefined) out[k] = nd[k];
    return out;
  });
  const parentOf = new Int32Array(nodes.length).fill(-1);
  nodes.forEach((nd, i) => ((nd.children as number[] | undefined) ?? []).forEach((c) => (parentOf[c] = i)));
  const tops = nodes.map((_, i) => i).filter((i) => parentOf[i] === -1);
  const anim = animations[which] as Json;
  const reduced = {
    asset: { version: '2.0' },
    scene: 0,
    scenes: [{ nodes: tops }],
    nodes,
    animations: [anim],
    accessors: json.accessors,
    bufferViews,
    buffers: total > 0 ? [{ byteLength: total }] : [],
  };
  const gltf = await new Promise<{ scene: Object3D; animations: AnimationClip[]; parser: { associations: Map<Object3D, { nodes?: number }> } }>((resolve, reject) => {
    try {
      new GLTFLoader().parse(glb(JSON.stringify(reduced), bin), '', resolve as never, (e: unknown) => reject(e));
    } catch (e) {
      reject(e);
    }
  }).catch((e: unknown) => fail(`three.js could not read animation "${names[which]}": ${e instanceof Error ? e.message : String(e)}`));
  const clip = gltf.animations[0];
  if (!clip || clip.tracks.length === 0) return fail(`animation "${names[which]}" has no tracks three.js can play`);
  const byNode = new Map<number, Object3D>();
  gltf.scene.traverse((o) => {
    const idx = gltf.parser.associations.get(o)?.nodes;
    if (idx !== undefined && !byNode.has(idx)) byNode.set(idx, o);
  });

  // frame rate from the shortest key interval
  let shortest = Infinity, duration = 0;
  for (const track of clip.tracks) {
    const t = track.times;
    for (let k = 1; k < t.length; k++) if (t[k]! - t[k - 1]! > 1e-6) shortest = Math.min(shortest, t[k]! - t[k - 1]!);
    if (t.length) duration = Math.max(duration, t[t.length - 1]!);
  }
  let fps = Number.isFinite(shortest) ? Math.round(1 / shortest) : 30;
  const notes: string[] = [];
  if (fps > MAX_GLTF_FPS) { notes.push(`keys ${shortest.toPrecision(3)} s apart: sampled at ${MAX_GLTF_FPS} fps`); fps = MAX_GLTF_FPS; }
  // sparse keys are interpolated: sampled at 30 fps at least, so the frames follow the curves
  if (fps < MIN_GLTF_FPS) fps = MIN_GLTF_FPS;
  const F = Math.max(1, Math.round(duration * fps) + 1);
  if (F > MAX_CLIP_FRAMES) fail(`animation "${names[which]}" is ${duration.toFixed(1)} s at ${fps} fps: more than the ${MAX_CLIP_FRAMES} frames a clip may have`);

  // the joints in parent-first order
  const nodeOfJoint = imported.joints.map((j) => j.node);
  const jointOfNode = new Map(nodeOfJoint.map((nd, k) => [nd, k]));
  const order: number[] = [];
  const placed = new Uint8Array(nodeOfJoint.length);
  const depth = (k: number) => { let d = 0; for (let a = parentOf[nodeOfJoint[k]!]!; a >= 0; a = parentOf[a]!) d++; return d; };
  const depths = nodeOfJoint.map((_, k) => depth(k));
  nodeOfJoint.map((_, k) => k).sort((a, b) => depths[a]! - depths[b]! || a - b).forEach((k) => { order.push(k); placed[k] = 1; });
  const position = new Map(order.map((k, i) => [k, i]));
  const joints: SourceJoint[] = order.map((k) => {
    let a = parentOf[nodeOfJoint[k]!]!;
    while (a >= 0 && !jointOfNode.has(a)) a = parentOf[a]!;
    return { name: imported.joints[k]!.name, bone: imported.joints[k]!.bone, parent: a < 0 ? -1 : position.get(jointOfNode.get(a)!)! };
  });
  if (joints.filter((j) => j.parent < 0).length !== 1) fail('the skin\'s joints form more than one hierarchy');
  const objects = order.map((k) => byNode.get(nodeOfJoint[k]!));
  if (objects.some((o) => !o)) fail('three.js did not build every joint node');
  const out = emptyMotion(names[which]!, joints, fps, F);
  out.notes.push(...notes);
  const n = joints.length;
  const v = new Vector3(), q = new Quaternion();
  const read = (pos: Float64Array, rot: Float64Array, base: number) => {
    gltf.scene.updateMatrixWorld(true);
    for (let i = 0; i < n; i++) {
      objects[i]!.getWorldPosition(v);
      objects[i]!.getWorldQuaternion(q);
      pos[(base + i) * 3] = v.x; pos[(base + i) * 3 + 1] = v.y; pos[(base + i) * 3 + 2] = v.z;
      rot[(base + i) * 4] = q.x; rot[(base + i) * 4 + 1] = q.y; rot[(base + i) * 4 + 2] = q.z; rot[(base + i) * 4 + 3] = q.w;
    }
  };
  read(out.restPositions, out.restRotations, 0);
  // every track's target and interpolant
  const bindings = clip.tracks.map((track) => {
    const dot = track.name.lastIndexOf('.');
    const nodeName = track.name.slice(0, dot), property = track.name.slice(dot + 1);
    const target = gltf.scene.getObjectByName(nodeName) ?? gltf.scene.getObjectByProperty('uuid', nodeName);
    // (three.js's types leave out KeyframeTrack.createInterpolant, which every track has)
    const interpolant = (track as unknown as { createInterpolant(): { evaluate(t: number): ArrayLike<number> } }).createInterpolant();
    return { target, property, interpolant };
  });
  const skipped = bindings.filter((b) => !b.target || !['position', 'quaternion', 'scale'].includes(b.property)).length;
  if (skipped) out.notes.push(`${skipped} track(s) skipped (morph weights, or no node to play on)`);
  for (let f = 0; f < F; f++) {
    const t = Math.min(duration, f / fps);
    for (const b of bindings) {
      if (!b.target) continue;
      const r = b.interpolant.evaluate(t) as ArrayLike<number>;
      if (b.property === 'position') b.target.position.set(r[0]!, r[1]!, r[2]!);
      else if (b.property === 'quaternion') b.target.quaternion.set(r[0]!, r[1]!, r[2]!, r[3]!).normalize();
      else if (b.property === 'scale') b.target.scale.set(r[0]!, r[1]!, r[2]!);
    }
    read(out.positions, out.rotations, f * n);
  }
  return out;
}

