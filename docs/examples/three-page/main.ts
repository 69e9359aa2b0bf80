/**
 * physik-ecs in a three.js page: a pinned three-bone arm drawn as boxes, its hand following a
 * target that circles in front of it. The simulation steps at its fixed dt, as many steps as the
 * frame's time needs; the view only reads the pose.
 *
 *   npx vite docs/examples/three-page
 */
import { BoxGeometry, Color, DirectionalLight, HemisphereLight, Mesh, MeshStandardMaterial, PerspectiveCamera, Scene, SphereGeometry, Vector3, WebGLRenderer } from 'three';
import { createPhysikWorld, addRig, setTarget, step, readPose, getSettings } from 'physik-ecs';

export interface ArmPage { frame: (seconds: number) => void; handError: () => number; dispose: () => void }

/** Build the page in `parent`; `frame(t)` advances it to time t (seconds) and draws. */
export function mountArmPage(parent: HTMLElement): ArmPage {
  const world = createPhysikWorld();
  const lengths = [0.3, 0.25, 0.12];
  const { rig, controlPoints } = addRig(world, {
    rig: { name: 'arm', root: 'pinned', bones: [
      { name: 'upper', parent: null, direction: [1, 0, 0], length: lengths[0]! },
      { name: 'fore', parent: 'upper', direction: [1, 0, 0], length: lengths[1]!, limits: { x: [0, 0], y: [-60, 60], z: [0, 130] } },
      { name: 'hand', parent: 'fore', direction: [1, 0, 0], length: lengths[2]!, limits: { x: [-30, 30], y: [0, 0], z: [-60, 60] } },
    ] },
    controlPoints: [{ name: 'grip', bone: 'hand' }],
    // a target that moves every frame is followed as it is (interpolation is for jumps)
    settings: { interpolation: 'none' },
  });
  const grip = controlPoints['grip'];
  if (grip === undefined) throw new Error('the rig has no control point "grip"');
  const dt = getSettings(world, rig).dt;

  const renderer = new WebGLRenderer({ antialias: true });
  renderer.setPixelRatio(window.devicePixelRatio);
  parent.appendChild(renderer.domElement);
  const scene = new Scene();
  scene.background = new Color(0x1d1f24);
  scene.add(new HemisphereLight(0xffffff, 0x404040, 2), new DirectionalLight(0xffffff, 1.5));
  const camera = new PerspectiveCamera(45, 1, 0.01, 20);
  camera.position.set(0.3, 0.2, 1.6);
  camera.lookAt(0.3, 0, 0);
  const material = new MeshStandardMaterial({ color: 0xd9c8a9 });
  // a box per bone, its length along +Y (a bone's own axis), placed from its head and rotation
  const boxes = lengths.map((l) => {
    const geometry = new BoxGeometry(0.04, l, 0.04);
    geometry.translate(0, l / 2, 0);
    const box = new Mesh(geometry, material);
    scene.add(box);
    return box;
  });
  const marker = new Mesh(new SphereGeometry(0.02), new MeshStandardMaterial({ color: 0xff8a3d }));
  scene.add(marker);

  const target = new Vector3();
  let simulated = 0;
  function resize(): void {
    const w = parent.clientWidth || 640, h = parent.clientHeight || 480;
    renderer.setSize(w, h);
    camera.aspect = w / h;
    camera.updateProjectionMatrix();
  }
  resize();
  window.addEventListener('resize', resize);

  return {
    frame(t) {
      target.set(0.35 + 0.15 * Math.cos(t), 0.2 * Math.sin(t), 0.1 * Math.sin(0.5 * t));
      setTarget(world, grip, [target.x, target.y, target.z]);
      // fixed steps up to the frame's time (at most a second's worth after a stall)
      const steps = Math.min(Math.floor((t - simulated) / dt), Math.ceil(1 / dt));
      if (steps > 0) { step(world, steps); simulated += steps * dt; }
      if (t - simulated > 1) simulated = t;
      const pose = readPose(world, rig);
      ['upper', 'fore', 'hand'].forEach((name, i) => {
        const p = pose[name];
        if (!p) return;
        boxes[i]!.position.fromArray(p.head);
        boxes[i]!.quaternion.fromArray(p.world);
      });
      marker.position.copy(target);
      renderer.render(scene, camera);
    },
    handError() {
      const tail = readPose(world, rig)['hand']?.tail;
      return tail ? target.distanceTo(new Vector3().fromArray(tail)) : Infinity;
    },
    dispose() {
      window.removeEventListener('resize', resize);
      renderer.dispose();
      renderer.domElement.remove();
    },
  };
}

if (typeof document !== 'undefined' && document.body) {
  const page = mountArmPage(document.body);
  (window as unknown as { armPage: ArmPage }).armPage = page;
  const loop = (ms: number): void => { page.frame(ms / 1000); requestAnimationFrame(loop); };
  requestAnimationFrame(loop);
}
