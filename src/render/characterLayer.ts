/**
 * An imported character drawn as itself (browser only): the source glTF's meshes, skins,
 * materials and textures, loaded with three.js's GLTFLoader, with its skinned meshes bound to
 * the file's own joint nodes, and those nodes turned every frame by the rig's PhysIK pose
 * (src/io/sourcePose.ts: the same map the export onto the source file writes, so what is
 * seen is what is exported). Joins the view through `view.addLayer`.
 *
 * Per frame: the rig's bone rotations and root head are read into a preallocated buffer, the
 * poser writes each joint node's local rotation (and the root's translation), and three.js
 * skins the meshes when it renders. No allocation per frame.
 *
 * Skinned meshes are never frustum-culled (their bounds are the rest pose's; a posed limb may
 * leave them). The file's own animations are not played.
 *
 * The skin under the pointer and the selected bone's skin are lit (`highlight`, called by the
 * view every frame): each skinned mesh gets its own copy of its materials, their shaders
 * tinting a vertex by its skin weight on the bone hovered (toward light blue) and on the one
 * selected (toward the selected bone's yellow).
 *
 * Limits: glTF only (a BVH has no mesh: its rig is drawn as bones); the rig must be the one
 * imported from the file (bones named as the import named the joints).
 */
import {
  Box3, type BufferAttribute, type Intersection, type Material, type Mesh, type Object3D, type Ray, Raycaster, type SkinnedMesh,
  type Texture, Vector3,
} from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import type { PhysikWorld } from '../core';
import { findRig } from '../world/world';
import { readGltfJson } from '../io/gltfImport';
import { createSourcePoser, type SourcePoser } from '../io/sourcePose';
import { growBounds, type Bounds } from './shapes';
import type { BonePick } from './picking';
import type { ViewLayer } from './view';

export interface CharacterSource {
  /** The .glb's bytes (or a .gltf's text with embedded buffers). */
  data: ArrayBuffer | string;
  /** The import's joints: name and node (`GltfImport.joints`). */
  joints: readonly { name: string; node: number }[];
  /** The import's scale and up axis, when not the defaults. */
  scale?: number;
  up?: 'y' | 'z';
  file?: string;
}

export interface CharacterLayer extends ViewLayer {
  /** The loaded file's scene (added to the view's scene). */
  readonly root: Object3D;
  /** Meshes drawn (skinned and not) and of those skinned. */
  readonly meshes: number;
  readonly skinnedMeshes: number;
  /** The file's node a bone turns (by the bone's name). */
  jointObject(bone: string): Object3D | undefined;
  /** Show or hide the meshes. */
  setVisible(on: boolean): void;
  /** Light the skin of the bone under the pointer and of the selected bone (entities; −1: none). */
  highlight(hoverBone: number, selectedBone: number): void;
  /** The skin index per skinned mesh the shaders light now, hovered and selected (−1: none), for tests. */
  readonly lit: readonly { hover: number; selected: number }[];
  /**
   * The bone under a ray through the skinned mesh as it is posed now: of the nearest face hit,
   * the bone its three vertices are most weighted to (weights blended by where the face was
   * hit), with the point on that bone's axis nearest the hit; null when the ray misses the
   * mesh (or it is hidden). `distance`: how far along the ray the mesh was hit.
   */
  pickBone(ray: Ray): (BonePick & { distance: number }) | null;
  readonly visible: boolean;
}

/** Load `source` and draw it posed by rig `rig` of `world` into `parent` (the view's scene). */
export async function createCharacterLayer(world: PhysikWorld, rig: number, parent: Object3D, source: CharacterSource): Promise<CharacterLayer> {
  const json = readGltfJson(typeof source.data === 'string' ? source.data : new Uint8Array(source.data), source.file);
  const record = findRig(world, rig);
  const { Bone } = world.physik;
  const index = new Map<number, number>();
  record.bones.forEach((b, i) => index.set(b, i));
  const bones = Array.from(record.bones, (b, i) => ({
    name: record.boneNames[i]!,
    parent: Bone.parent[b]! < 0 ? -1 : index.get(Bone.parent[b]!)!,
    restWorld: [Bone.restWorld[b * 4]!, Bone.restWorld[b * 4 + 1]!, Bone.restWorld[b * 4 + 2]!, Bone.restWorld[b * 4 + 3]!],
  }));
  const poser: SourcePoser = createSourcePoser(json, source.joints, bones, { scale: source.scale, up: source.up, what: `rig "${record.name}"`, file: source.file });
  const gltf = await new GLTFLoader().parseAsync(typeof source.data === 'string' ? source.data : source.data.slice(0), '');
  const root = gltf.scene;
  root.name = `${record.name} (character)`;
  const objectOf = new Map<number, Object3D>();
  for (const [object, assoc] of gltf.parser.associations) {
    const node = (assoc as { nodes?: number }).nodes;
    if (node !== undefined && !objectOf.has(node) && (object as Object3D).isObject3D) objectOf.set(node, object as Object3D);
  }
  const targets = Array.from(poser.nodes, (node) => {
    const o = objectOf.get(node);
    if (!o) throw new Error(`${source.file ?? 'the character'}: joint node ${node} was not loaded`);
    return o;
  });
  let meshes = 0, skinned = 0;
  root.traverse((o) => {
    const m = o as Mesh;
    if (!m.isMesh) return;
    meshes++;
    if ((m as { isSkinnedMesh?: boolean }).isSkinnedMesh) skinned++;
    m.frustumCulled = false;
  });
  parent.add(root);

  const n = bones.length;
  const rot = new Float64Array(n * 4);
  const head = new Float64Array(3);
  const local = new Float64Array(n * 4);
  const translation = new Float64Array(3);
  const rootObject = targets[poser.rootBone]!;
  const box = new Box3();
  const corner = new Vector3();
  let visible = true;

  function update(): void {
    if (!visible) return;
    for (let i = 0; i < n; i++) {
      const b = record.bones[i]!;
      for (let k = 0; k < 4; k++) rot[i * 4 + k] = Bone.rot[b * 4 + k]!;
    }
    const r = record.bones[poser.rootBone]!;
    head[0] = Bone.head[r * 3]!; head[1] = Bone.head[r * 3 + 1]!; head[2] = Bone.head[r * 3 + 2]!;
    if (!Number.isFinite(head[0]! + head[1]! + head[2]!)) return;
    poser.pose(rot, head, local, translation);
    for (let i = 0; i < n; i++) targets[i]!.quaternion.set(local[i * 4]!, local[i * 4 + 1]!, local[i * 4 + 2]!, local[i * 4 + 3]!);
    rootObject.position.set(translation[0]!, translation[1]!, translation[2]!);
    boundsStale = true;
  }

  // picking: the skin's joint objects to rig bone indices (a joint the rig lacks counts for its nearest ancestor that it has)
  const boneOfObject = new Map<Object3D, number>();
  targets.forEach((o, i) => boneOfObject.set(o, i));
  const boneIndexOf = (o: Object3D | null | undefined): number => {
    for (let c = o; c; c = c.parent) {
      const i = boneOfObject.get(c);
      if (i !== undefined) return i;
    }
    return -1;
  };
  const skins: SkinnedMesh[] = [];
  root.traverse((o) => { if ((o as SkinnedMesh).isSkinnedMesh) skins.push(o as SkinnedMesh); });
  // highlight: per skinned mesh, its materials copied with two uniforms (the skin index hovered
  // and the one selected), and each rig bone's index in its skeleton
  const lit = skins.map((mesh) => {
    const uniforms = { physikHover: { value: -1 }, physikSelected: { value: -1 } };
    const copy = (m: Material) => litMaterial(m, uniforms);
    mesh.material = Array.isArray(mesh.material) ? mesh.material.map(copy) : copy(mesh.material);
    const skinOf = Int32Array.from(targets, (o) => mesh.skeleton.bones.indexOf(o as never));
    return { uniforms, skinOf };
  });
  let litHover = -2, litSelected = -2;
  /** Whether the pose has been written since the skins' bounds were last taken. */
  let boundsStale = true;
  function highlight(hoverBone: number, selectedBone: number): void {
    if (hoverBone === litHover && selectedBone === litSelected) return;
    litHover = hoverBone; litSelected = selectedBone;
    const h = record.bones.indexOf(hoverBone), sel = record.bones.indexOf(selectedBone);
    for (const l of lit) {
      l.uniforms.physikHover.value = h >= 0 ? l.skinOf[h]! : -1;
      l.uniforms.physikSelected.value = sel >= 0 ? l.skinOf[sel]! : -1;
    }
  }

  const raycaster = new Raycaster();
  const hits: Intersection[] = [];
  const weightOf = new Float64Array(n);
  const bary = [0, 0, 0];

  function pickBone(ray: Ray): (BonePick & { distance: number }) | null {
    if (!visible || skins.length === 0) return null;
    root.updateMatrixWorld(true);
    raycaster.ray.copy(ray);
    hits.length = 0;
    for (const m of skins) {
      // the bounds three.js keeps are of the pose they were first taken in: retake them (once a frame)
      if (boundsStale) {
        m.computeBoundingSphere();
        if ((m.boundingBox as Box3 | null) !== null) m.computeBoundingBox();
      }
      m.raycast(raycaster, hits);
    }
    boundsStale = false;
    let hit: Intersection | undefined;
    for (const h of hits) if (h.face && (!hit || h.distance < hit.distance)) hit = h;
    if (!hit?.face) return null;
    const mesh = hit.object as SkinnedMesh;
    const skinIndex = mesh.geometry.getAttribute('skinIndex') as BufferAttribute | undefined;
    const skinWeight = mesh.geometry.getAttribute('skinWeight') as BufferAttribute | undefined;
    if (!skinIndex || !skinWeight) return null;
    weightOf.fill(0);
    const b = (hit as Intersection & { barycoord?: Vector3 }).barycoord;
    bary[0] = b ? b.x : 1 / 3; bary[1] = b ? b.y : 1 / 3; bary[2] = b ? b.z : 1 / 3;
    const verts = [hit.face.a, hit.face.b, hit.face.c];
    for (let v = 0; v < 3; v++) {
      for (let k = 0; k < skinIndex.itemSize; k++) {
        const w = skinWeight.getComponent(verts[v]!, k);
        if (!(w > 0)) continue;
        const i = boneIndexOf(mesh.skeleton.bones[skinIndex.getComponent(verts[v]!, k)]);
        // a little of every vertex's weight, so a face hit at a corner still counts its others
        if (i >= 0) weightOf[i] = weightOf[i]! + w * (0.25 + bary[v]!);
      }
    }
    let best = -1;
    for (let i = 0; i < n; i++) if (weightOf[i]! > 0 && (best < 0 || weightOf[i]! > weightOf[best]!)) best = i;
    if (best < 0) return null;
    const e = record.bones[best]!, e3 = e * 3;
    const hx = Bone.head[e3]!, hy = Bone.head[e3 + 1]!, hz = Bone.head[e3 + 2]!;
    const dx = Bone.tail[e3]! - hx, dy = Bone.tail[e3 + 1]! - hy, dz = Bone.tail[e3 + 2]! - hz;
    const len2 = dx * dx + dy * dy + dz * dz;
    const p = hit.point;
    const at = len2 > 0 ? Math.min(1, Math.max(0, ((p.x - hx) * dx + (p.y - hy) * dy + (p.z - hz) * dz) / len2)) : 0;
    return { bone: e, at, point: [hx + at * dx, hy + at * dy, hz + at * dz], distance: hit.distance };
  }

  function dispose(): void {
    root.removeFromParent();
    const seen = new Set<unknown>();
    root.traverse((o) => {
      const m = o as Mesh;
      if (!m.isMesh) return;
      m.geometry.dispose();
      for (const mat of (Array.isArray(m.material) ? m.material : [m.material]) as Material[]) {
        if (seen.has(mat)) continue;
        seen.add(mat);
        for (const v of Object.values(mat)) if ((v as Texture | null)?.isTexture) (v as Texture).dispose();
        mat.dispose();
      }
    });
  }

  update();
  return {
    root, update, dispose, pickBone, highlight,
    get lit() { return lit.map((l) => ({ hover: l.uniforms.physikHover.value, selected: l.uniforms.physikSelected.value })); },
    get meshes() { return meshes; },
    get skinnedMeshes() { return skinned; },
    get visible() { return visible; },
    jointObject: (name) => { const i = bones.findIndex((b) => b.name === name); return i < 0 ? undefined : targets[i]; },
    setVisible(on) { visible = on; root.visible = on; },
    grow(bounds: Bounds) {
      if (!visible) return;
      root.updateMatrixWorld(true);
      box.setFromObject(root, true);
      if (box.isEmpty()) return;
      for (let k = 0; k < 2; k++) {
        corner.copy(k ? box.max : box.min);
        growBounds(bounds, corner.x, corner.y, corner.z);
      }
    },
  };
}

/** The tints of the lit skin: hovered toward a light blue (seen on pale skin too), selected toward the selected bone's yellow (rigLayer.ts). */
const HOVER_TINT = '0.55, 0.8, 1.0', SELECTED_TINT = '1.0, 0.847, 0.29';

/**
 * A copy of material `m` whose shader lights the vertices skinned to the skin indices in
 * `uniforms` (by their weight on it). Materials whose shader has no skinning are copied as
 * they are (the uniforms then do nothing).
 */
function litMaterial(m: Material, uniforms: { physikHover: { value: number }; physikSelected: { value: number } }): Material {
  const out = m.clone();
  out.onBeforeCompile = (shader) => {
    if (!shader.vertexShader.includes('#include <skinning_vertex>') || !shader.fragmentShader.includes('#include <dithering_fragment>')) return;
    Object.assign(shader.uniforms, uniforms);
    shader.vertexShader = shader.vertexShader
      .replace('#include <common>', '#include <common>\nuniform float physikHover;\nuniform float physikSelected;\nvarying vec2 vPhysikLit;')
      .replace('#include <skinning_vertex>', [
        '#include <skinning_vertex>',
        '#ifdef USE_SKINNING',
        'vPhysikLit = vec2(dot(vec4(equal(skinIndex, vec4(physikHover))), skinWeight), dot(vec4(equal(skinIndex, vec4(physikSelected))), skinWeight));',
        '#else',
        'vPhysikLit = vec2(0.0);',
        '#endif',
      ].join('\n'));
    shader.fragmentShader = shader.fragmentShader
      .replace('#include <common>', '#include <common>\nvarying vec2 vPhysikLit;')
      .replace('#include <dithering_fragment>', [
        `gl_FragColor.rgb = mix(gl_FragColor.rgb, vec3(${SELECTED_TINT}), 0.45 * clamp(vPhysikLit.y, 0.0, 1.0));`,
        `gl_FragColor.rgb = mix(gl_FragColor.rgb, vec3(${HOVER_TINT}), 0.5 * clamp(vPhysikLit.x, 0.0, 1.0));`,
        '#include <dithering_fragment>',
      ].join('\n'));
  };
  out.customProgramCacheKey = () => 'physik-lit-skin';
  return out;
}
