/**
 * The selected bone's overlay (browser only): an edge outline on top of it, and at its head a
 * gizmo of its angular limits, per enabled axis of the joint frame (x red, y green, z blue): a
 * translucent fan from min to max showing where the bone would point when turned about that
 * axis alone (twist, y, sweeps the frame's +Z instead, since it does not move the bone), and a
 * marker at the current angle (`jointRotationVector`). Geometry in ./limits.ts.
 *
 * The gizmo shows each axis alone: for a joint turned about several axes the bone is not on
 * any one arc, and the twist marker shows the twist component, not where a point on the bone is.
 */
import {
  BufferAttribute, BufferGeometry, DoubleSide, DynamicDrawUsage, Group, Line, LineBasicMaterial, LineSegments,
  Mesh, MeshBasicMaterial, type Object3D,
} from 'three';
import type { PhysikWorld } from '../core';
import { jointRotationVector } from '../world/jointRotation';
import {
  LIMIT_ARC_SEGMENTS, jointFrame, limitDirection, limitFanIndex, limitOutlineIndex, writeLimitFan,
} from './limits';
import { OVERLAY_ORDER, type Shapes } from './shapes';

/** Limit gizmo radius as a fraction of the selected bone's length. */
const LIMIT_RADIUS = 0.35;
const SELECTED = 0xffd84a;
/** Limit gizmo colour per joint-frame axis x, y, z. */
const AXIS_COLOURS = [0xff5a5a, 0x5ee07a, 0x5a9bff] as const;

/** Limit gizmo of one joint-frame axis: fan and outline share the points; a marker at the current angle. */
interface AxisGizmo {
  points: BufferAttribute;
  fan: Mesh;
  outline: Line;
  marker: Line;
  markerPoints: BufferAttribute;
  tip: Mesh;
}

export interface SelectionLayer {
  /** Outline and gizmo of `bone` (hidden when it is not in the world, or -1). */
  write(bone: number): void;
  dispose(): void;
}

export function createSelectionLayer(world: PhysikWorld, parent: Object3D, shapes: Shapes): SelectionLayer {
  const overlay = new Group();
  overlay.renderOrder = OVERLAY_ORDER;
  parent.add(overlay);
  const selectionMat = new LineBasicMaterial({ color: SELECTED, transparent: true, opacity: 0.95, depthTest: false });
  const outline = new LineSegments(shapes.boneEdges, selectionMat);
  const fanIndex = new BufferAttribute(limitFanIndex(LIMIT_ARC_SEGMENTS), 1);
  const outlineIndex = new BufferAttribute(limitOutlineIndex(LIMIT_ARC_SEGMENTS), 1);
  const geos: BufferGeometry[] = [];
  const mats: (MeshBasicMaterial | LineBasicMaterial)[] = [selectionMat];
  const axes: AxisGizmo[] = [];
  const dynamic = (n: number) => {
    const a = new BufferAttribute(new Float32Array(n * 3), 3);
    a.setUsage(DynamicDrawUsage);
    return a;
  };
  const geometry = (points: BufferAttribute, index?: BufferAttribute) => {
    const g = new BufferGeometry();
    g.setAttribute('position', points);
    if (index) g.setIndex(index);
    geos.push(g);
    return g;
  };
  const onTop = (o: Object3D) => {
    o.renderOrder = OVERLAY_ORDER;
    o.frustumCulled = false;
    o.visible = false;
    overlay.add(o);
  };
  onTop(outline);
  for (let a = 0; a < 3; a++) {
    const colour = AXIS_COLOURS[a]!;
    const points = dynamic(LIMIT_ARC_SEGMENTS + 2);
    const markerPoints = dynamic(2);
    const fanMat = new MeshBasicMaterial({ color: colour, transparent: true, opacity: 0.2, side: DoubleSide, depthWrite: false, depthTest: false });
    const lineMat = new LineBasicMaterial({ color: colour, transparent: true, opacity: 0.85, depthTest: false });
    const tipMat = new MeshBasicMaterial({ color: colour, depthTest: false });
    mats.push(fanMat, lineMat, tipMat);
    const g: AxisGizmo = {
      points, markerPoints,
      fan: new Mesh(geometry(points, fanIndex), fanMat),
      outline: new Line(geometry(points, outlineIndex), lineMat),
      marker: new Line(geometry(markerPoints), lineMat),
      tip: new Mesh(shapes.sphere, tipMat),
    };
    for (const o of [g.fan, g.outline, g.marker, g.tip]) onTop(o);
    axes.push(g);
  }

  const phi = new Float64Array(3);
  const frameQ = new Float64Array(4);
  const dir = new Float64Array(3);

  function show(g: AxisGizmo, on: boolean): void {
    g.fan.visible = g.outline.visible = g.marker.visible = g.tip.visible = on;
  }

  function write(b: number): void {
    const { Bone, AngularLimit } = world.physik;
    let found = false;
    if (b >= 0) for (const r of world.physik.rigs) if (r.bones.includes(b)) { found = true; break; }
    outline.visible = found;
    if (!found) { for (const g of axes) show(g, false); return; }
    const b3 = b * 3, b4 = b * 4;
    const len = Bone.length[b]!;
    const hx = Bone.head[b3]!, hy = Bone.head[b3 + 1]!, hz = Bone.head[b3 + 2]!;
    outline.position.set(hx, hy, hz);
    outline.quaternion.set(Bone.rot[b4]!, Bone.rot[b4 + 1]!, Bone.rot[b4 + 2]!, Bone.rot[b4 + 3]!);
    outline.scale.set(len, len, len);

    const parentBone = Bone.parent[b]!;
    if (parentBone < 0) { for (const g of axes) show(g, false); return; }
    jointFrame(frameQ, 0, Bone.rot, Bone.restLocal, parentBone, b);
    jointRotationVector(world, b, phi);
    const radius = LIMIT_RADIUS * len;
    const tipR = Math.max(0.003, 0.03 * len);
    for (let a = 0; a < 3; a++) {
      const g = axes[a]!;
      const lo = AngularLimit.min[b3 + a]!, hi = AngularLimit.max[b3 + a]!;
      const on = AngularLimit.enabled[b3 + a] === 1 && lo <= hi;
      show(g, on);
      if (!on) continue;
      writeLimitFan(g.points.array as Float32Array, 0, frameQ, 0, hx, hy, hz, a, lo, hi, radius, LIMIT_ARC_SEGMENTS);
      g.points.needsUpdate = true;
      // the marker reaches a little past the arc so it reads when it sits on an edge
      limitDirection(dir, 0, frameQ, 0, a, phi[a]!);
      const r = radius * 1.2;
      const mp = g.markerPoints.array as Float32Array;
      mp[0] = hx; mp[1] = hy; mp[2] = hz;
      mp[3] = hx + r * dir[0]!; mp[4] = hy + r * dir[1]!; mp[5] = hz + r * dir[2]!;
      g.markerPoints.needsUpdate = true;
      g.tip.position.set(mp[3]!, mp[4]!, mp[5]!);
      g.tip.scale.set(tipR, tipR, tipR);
    }
  }

  return {
    write,
    dispose() {
      for (const g of geos) g.dispose();
      for (const mt of mats) mt.dispose();
      overlay.removeFromParent();
    },
  };
}
