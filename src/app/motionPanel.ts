/**
 * The panel's "Motion" folder (lil-gui; the logic is motion.ts): an imported character's own
 * animation played through the physics, with the clip drawn as a ghost (src/render/clipGhost.ts).
 *
 * - play clip through physics: on, the clip plays from its start with the markers chosen; off,
 *   the rig's settings and points are as before (the pose stays).
 * - markers: "hips, hands and feet", "all joints driven", "none (clip only)" or "chosen per bone";
 *   the bone selected in the view and its tie to the clip (free, world marker, pose drive,
 *   follows exactly) with its own stiffness and damping multipliers: choosing one makes the set
 *   "chosen per bone", starting from the set in effect.
 * - stiffness × and damping ratio ×: multipliers of the capture's springs, live; a value that
 *   is not a number, or out of range (stiffness above 0, damping from 0, both up to 100), is
 *   refused with a message and the field shows the value in effect again.
 * - play / pause (the simulation, the clip time advancing with it), restart clip.
 * - show clip ghost, and over the rig or beside it.
 * - readouts: the clip and its time, the markers' stray and the free bones' difference.
 *
 * While Motion is on the page's reset (`r`) starts the clip over, loading another scene or file
 * turns Motion off first, and undo and redo are refused (turning Motion off starts the history
 * over: its steps would put the markers' points back as plain ones). `window.__physik.motion` is the Motion (its `read()` the
 * debug read), `window.__physik.motionGhost` the ghost. Mounted by panel.ts; not in worker mode (the world is in the worker).
 */
import type GUI from 'lil-gui';
import type { Controller } from 'lil-gui';
import type { RigDescription } from '../world/types';
import { selectedBoneName, type Sandbox } from './sandbox';
import { BONE_TIES, createMotion, MOTION_MULTIPLIER_MAX, MOTION_PRESETS, type BoneTie, type Motion, type MotionPreset } from './motion';
import { createClipGhost, type ClipGhost } from '../render/clipGhost';

/** Tooltips of the Motion folder's controls. */
export const MOTION_TIPS = {
  folder: "Play the character's own animation (a .bvh's motion, a .glb's animation) through the physics: markers keep chosen bones on it, the rest moves by itself.",
  clip: "The animation in the character's file, and the moment of it shown now.",
  on: 'Play the animation through the physics from its start; untick to stop (your settings and points come back, the pose stays).',
  preset: 'Which bones the animation holds: hips, hands and feet pulled to it (the rest free), every joint driven toward it, or none (the animation exactly, no physics added).',
  stiffness: `How hard the markers pull toward the animation: × the capture's own stiffness (more than 0, at most ${MOTION_MULTIPLIER_MAX}).`,
  damping: `How much the markers' pull is damped: × critical damping (0 to ${MOTION_MULTIPLIER_MAX}; 1 settles without overshoot).`,
  play: 'Run or pause the simulation; the animation advances with it, step for step (after its end, play starts it over).',
  restart: 'Go back to the start of the animation, the rig posed there (r does the same while Motion is on).',
  ghost: 'Show the animation itself as a light, see-through skeleton at the moment shown, to compare with the physics.',
  placement: 'Draw the animation ghost over the rig, or beside it.',
  bone: 'The bone selected in the view (click a bone or its joint): the one "tie to clip" sets.',
  tie: "How the selected bone is held to the animation: free (physics only), a world marker pulling its joint to the animation's, a pose drive turning it toward the animation's angle, or following it exactly. Sets the markers to \"chosen per bone\".",
  boneStiffness: `The selected bone's own pull toward the animation: × the folder's stiffness (more than 0, at most ${MOTION_MULTIPLIER_MAX}); a free bone has none.`,
  boneDamping: `The selected bone's own damping of that pull: × the folder's damping ratio (0 to ${MOTION_MULTIPLIER_MAX}).`,
  stray: 'How far the marked bones are from the animation now, and the most since Motion started (% of the height).',
  free: 'The largest difference of a bone no marker holds from the animation, since Motion started (% of the height).',
} as const;

const PLACEMENTS = ['over the rig', 'beside it'] as const;
const NO_BONE = '(select a bone in the view)';
/** Largest binary file whose clip is read as soon as it is opened (bigger: when Motion is turned on). */
const READ_SOON_BYTES = 8 * 1024 * 1024;

export interface MotionPanelOptions {
  showError(message: string): void;
  clearError?(): void;
}

export interface MotionPanel {
  readonly folder: GUI;
  readonly motion: Motion;
  readonly ghost: ClipGhost;
  refresh(): void;
}

declare module './sandbox' {
  interface Sandbox {
    /** Physics on top of motion (motionPanel.ts), on the main thread only. */
    motion?: Motion;
    /** The clip's ghost layer (what it drew in the last frame, shown or hidden). */
    motionGhost?: ClipGhost;
  }
}

/** Mount the Motion folder on `gui`, before its Advanced fold; null in worker mode (the world is in the worker). */
export function mountMotionPanel(gui: GUI, sandbox: Sandbox, options: MotionPanelOptions): MotionPanel | null {
  if (sandbox.unavailable.includes('recording')) return null;
  const base = { reset: sandbox.reset, loadScene: sandbox.loadScene, openFile: sandbox.openFile, undo: sandbox.undo, redo: sandbox.redo };
  const motion = createMotion({
    world: sandbox.world,
    get rig() { return sandbox.rig; },
    get file() { return sandbox.character.file; },
    rigDescription: () => (JSON.parse(sandbox.sceneFile()) as { rig: RigDescription }).rig,
    setPaused: (p) => sandbox.setPaused(p),
    get paused() { return sandbox.paused; },
    reset: () => base.reset.call(sandbox),
  });
  sandbox.motion = motion;
  // While on: reset starts the clip over, another rig turns Motion off first, and undo and redo
  // are refused (the steps taken while on hold the markers' points, which the history would put
  // back as plain points once Motion is off: turning it off starts the history over).
  const stop = () => { motion.stop(); sandbox.history.clear(); };
  const off = () => { if (motion.on) { stop(); refresh(); } };
  sandbox.reset = () => { if (motion.on) tell(() => motion.restart()); else base.reset.call(sandbox); };
  sandbox.loadScene = (scene, name) => { off(); base.loadScene.call(sandbox, scene, name); };
  sandbox.openFile = (data, name) => { off(); return base.openFile.call(sandbox, data, name); };
  const noUndo = () => options.showError('Undo and redo are off while Motion plays a clip: untick "play clip through physics" first (that starts the undo history over).');
  sandbox.undo = () => { if (motion.on) noUndo(); else base.undo.call(sandbox); };
  sandbox.redo = () => { if (motion.on) noUndo(); else base.redo.call(sandbox); };

  const view = sandbox.view;
  const ghost = createClipGhost(view.scene, view.shapes, () => motion.ghostFrame());
  view.addLayer(ghost);
  sandbox.motionGhost = ghost;

  const folder = gui.addFolder('Motion');
  folder.$title.title = MOTION_TIPS.folder;
  const advanced = gui.folders.find((f) => f._title === 'Advanced');
  if (advanced && advanced !== folder) advanced.domElement.before(folder.domElement);
  const tip = <C extends Controller>(c: C, text: string) => { c.domElement.title = text; return c; };
  const labels = Object.values(MOTION_PRESETS);
  const presetOf = (label: string) => (Object.keys(MOTION_PRESETS) as MotionPreset[]).find((k) => MOTION_PRESETS[k] === label);
  const state = {
    clip: '(open a .bvh or .glb with motion)',
    on: false,
    preset: MOTION_PRESETS[motion.options.preset],
    stiffness: String(motion.options.stiffness),
    damping: String(motion.options.damping),
    ghost: true,
    placement: PLACEMENTS[0] as string,
    bone: NO_BONE,
    tie: BONE_TIES.free as string,
    boneStiffness: '1',
    boneDamping: '1',
    stray: '–',
    free: '–',
  };
  const ok = () => options.clearError?.();
  function tell(action: () => void): boolean {
    try { action(); ok(); return true; } catch (e) { options.showError(e instanceof Error ? e.message : String(e)); return false; }
  }
  async function attempt(what: string, action: () => Promise<void>): Promise<void> {
    try {
      await action();
      ok();
    } catch (e) {
      options.showError(`Motion: could not ${what}:\n${e instanceof Error ? e.message : String(e)}`);
    }
    refresh();
  }

  const controllers: Controller[] = [];
  const add = <C extends Controller>(c: C) => { controllers.push(c); return c; };
  add(tip(folder.add(state, 'clip').name('clip').disable(), MOTION_TIPS.clip));
  add(tip(folder.add(state, 'on').name('play clip through physics'), MOTION_TIPS.on))
    .onChange((v: boolean) => void attempt(v ? 'start' : 'stop', async () => {
      if (v) {
        await motion.start({ preset: presetOf(state.preset) ?? 'ends', stiffness: Number(state.stiffness), damping: Number(state.damping) });
        placeGhost();
        sandbox.setPaused(false);
      } else stop();
    }));
  add(tip(folder.add(state, 'preset', labels).name('markers'), MOTION_TIPS.preset))
    .onFinishChange((label: string) => void attempt('change the markers', () => motion.set({ preset: presetOf(label) ?? (label as MotionPreset) })));
  add(tip(folder.add(state, 'bone').name('selected bone').disable(), MOTION_TIPS.bone));
  const tieOfLabel = (label: string) => (Object.keys(BONE_TIES) as (BoneTie | 'free')[]).find((k) => BONE_TIES[k] === label);
  add(tip(folder.add(state, 'tie', Object.values(BONE_TIES)).name('tie to clip'), MOTION_TIPS.tie))
    .onFinishChange((label: string) => void attempt('tie the bone', async () => {
      const bone = selectedBoneName(sandbox);
      if (bone === null) throw new Error('select a bone in the view first (click the bone or its joint)');
      await motion.tie(bone, tieOfLabel(label) ?? (label as BoneTie));
    }));
  const scaleBone = (what: 'stiffness' | 'damping', v: string) => void attempt(`set the bone's ${what}`, async () => {
    const bone = selectedBoneName(sandbox);
    if (bone === null) throw new Error('select a bone in the view first (click the bone or its joint)');
    await motion.scaleTie(bone, { [what]: v as unknown as number });
  });
  add(tip(folder.add(state, 'boneStiffness').name('bone stiffness ×'), MOTION_TIPS.boneStiffness)).onFinishChange((v: string) => scaleBone('stiffness', v));
  add(tip(folder.add(state, 'boneDamping').name('bone damping ×'), MOTION_TIPS.boneDamping)).onFinishChange((v: string) => scaleBone('damping', v));
  add(tip(folder.add(state, 'stiffness').name('stiffness ×'), MOTION_TIPS.stiffness))
    .onFinishChange((v: string) => void attempt('set the stiffness', () => motion.set({ stiffness: v as unknown as number })));
  add(tip(folder.add(state, 'damping').name('damping ratio ×'), MOTION_TIPS.damping))
    .onFinishChange((v: string) => void attempt('set the damping', () => motion.set({ damping: v as unknown as number })));
  const blur = () => { if (document.activeElement instanceof HTMLElement) document.activeElement.blur(); };
  const actions = {
    play() { motion.play(sandbox.paused); blur(); refresh(); },
    restart() { tell(() => motion.restart()); blur(); refresh(); },
  };
  add(tip(folder.add(actions, 'play').name('▶ run / pause clip'), MOTION_TIPS.play));
  add(tip(folder.add(actions, 'restart').name('restart clip'), MOTION_TIPS.restart));
  add(tip(folder.add(state, 'ghost').name('show clip ghost'), MOTION_TIPS.ghost)).onChange((v: boolean) => ghost.setVisible(v));
  add(tip(folder.add(state, 'placement', [...PLACEMENTS]).name('ghost placement'), MOTION_TIPS.placement)).onChange(() => { placeGhost(); view.frame(); });
  add(tip(folder.add(state, 'stray').name('marker stray').disable(), MOTION_TIPS.stray));
  add(tip(folder.add(state, 'free').name('free bones differ').disable(), MOTION_TIPS.free));

  /** Over the rig, or moved along x past its width. */
  function placeGhost(): void {
    let dx = 0;
    if (state.placement === PLACEMENTS[1]) {
      const { Bone, Rig } = sandbox.world.physik;
      let lo = Infinity, hi = -Infinity;
      for (const b of Object.values(sandbox.bones)) for (const end of [Bone.head, Bone.tail]) { lo = Math.min(lo, end[b * 3]!); hi = Math.max(hi, end[b * 3]!); }
      dx = Number.isFinite(hi - lo) ? hi - lo + 0.3 * Rig.height[sandbox.rig]! : 0;
    }
    ghost.setOffset(dx, 0, 0);
  }

  /** The character file whose clip was last asked for, and why it has none (''), read as soon as a file is opened. */
  let askedFor: unknown = null;
  let noMotion = '';
  function readSoon(): void {
    const file = sandbox.character.file;
    if (file === askedFor) return;
    askedFor = file;
    noMotion = '';
    // (a large .glb is read again only when asked for: its mesh and textures are parsed with it)
    if (!file || (typeof file.data !== 'string' && file.data.byteLength > READ_SOON_BYTES)) return;
    motion.load().then(() => live(), (e: unknown) => {
      if (askedFor !== file) return;
      noMotion = `(no motion: ${e instanceof Error ? e.message : String(e)})`;
      live();
    });
  }

  /** What showTie last showed (the fields' own values change as they are typed in). */
  let shownTie = '';
  /** The selected bone, its tie and its multipliers, shown when one of them changed (not into a field being typed in). */
  function showTie(force = false): void {
    const name = selectedBoneName(sandbox);
    const bone = name ?? NO_BONE, tie = BONE_TIES[name === null ? 'free' : motion.tieOf(name)];
    const sc = name === null ? { stiffness: 1, damping: 1 } : motion.scaleOf(name);
    const k = String(sc.stiffness), d = String(sc.damping);
    const key = `${bone}\u0000${tie}\u0000${k}\u0000${d}`;
    if (key === shownTie && !force) return;
    shownTie = key;
    state.bone = bone; state.tie = tie; state.boneStiffness = k; state.boneDamping = d;
    for (const c of controllers) {
      if (['bone', 'tie', 'boneStiffness', 'boneDamping'].includes(c.property) && !c.domElement.contains(document.activeElement)) c.updateDisplay();
    }
  }

  const pct = (x: number) => `${(100 * x).toFixed(2)}%`;
  /** The readouts: clip, time, stray. */
  function live(): void {
    readSoon();
    showTie();
    const r = motion.read();
    const clip = r.clip
      ? `${r.clip.name}: ${r.on ? `${r.time.toFixed(2)} of ` : ''}${r.clip.duration.toFixed(2)} s at ${Number(r.clip.fps.toFixed(2))} fps${r.ended ? ' (end)' : ''}`
      : sandbox.character.file ? noMotion || `${sandbox.character.file.fileName} (its motion is read when turned on)` : '(open a .bvh or .glb with motion)';
    const stray = r.on && r.markers.length ? `${pct(r.markerStray)} now, ${pct(r.markerStrayMax)} most` : '–';
    const free = r.on ? `${pct(r.freeMax)} most, ${pct(r.ghostDistance)} now` : '–';
    if (clip !== state.clip || stray !== state.stray || free !== state.free) {
      state.clip = clip; state.stray = stray; state.free = free;
      for (const c of controllers) if (c.property === 'clip' || c.property === 'stray' || c.property === 'free') c.updateDisplay();
    }
  }

  function refresh(): void {
    motion.sync();
    showTie(true);
    state.on = motion.on;
    state.preset = MOTION_PRESETS[motion.options.preset];
    state.stiffness = String(motion.options.stiffness);
    state.damping = String(motion.options.damping);
    state.ghost = ghost.visible;
    live();
    for (const c of controllers) c.updateDisplay();
  }
  const onChange = sandbox.onChange, onLive = sandbox.onLive;
  sandbox.onChange = () => { onChange?.(); refresh(); };
  sandbox.onLive = () => { onLive?.(); live(); };
  refresh();
  return { folder, motion, ghost, refresh };
}
