/**
 * The panel's "joint" folder (lil-gui; the logic is joints.ts): the selected joint's limits per
 * axis in degrees, and the humanoid template's mapping, with the selected joint's role.
 *
 * - joint: the joint edited, the one selected in the view (a bone, a handle's or pin's bone, or
 *   the character's mesh clicked) or picked here (the view then highlights it and draws its
 *   limit arcs).
 * - template role: the joint's role in the humanoid template; choosing another (or none) puts
 *   the template's limits for it on the joint (none: ±135° swing, ±90° twist).
 * - x, y, z: limited or free, and min and max (degrees) of the rotation about each axis of the
 *   joint's frame (y along the bone; on a templated limb, x is the bend).
 * - the mapping: which joint took which role, each joint a button that selects it.
 *
 * Every change applies live to the world through the plugin's API (and to the compare ghost's)
 * and is one undo step; a
 * refused value (not a number, outside −180…180, min above max) is shown in #error and the
 * fields go back to the joint's limits. The scene file ("save scene .json") saves the limits;
 * an imported character also keeps its roles as edited with its file in IndexedDB
 * (characterStore.ts), taken again when a reload opens it.
 * Mounted by panel.ts (`mountJointPanel`); not in worker mode (the world is in the worker).
 */
import type GUI from 'lil-gui';
import { getJointLimits, setJointLimits } from '../core';
import type { Controller } from 'lil-gui';
import { TEMPLATE_ROLES, type TemplateRole } from '../io/humanoid';
import type { RigDescription } from '../world/types';
import { selectedBoneName, type Sandbox } from './sandbox';
import { createJointEditing, NEW_AXIS_LIMIT, type JointEditing, type JointLimits } from './joints';
import { saveCharacterMapping } from './characterStore';

const AXES = ['x', 'y', 'z'] as const;
type Axis = (typeof AXES)[number];
const NONE = '(none)';

/** Tooltips of the joint folder's controls. */
export const JOINT_TIPS = {
  folder: "Edit the selected joint's limits and its role in the humanoid template; saved with the scene.",
  joint: "The joint you edit: pick it here, or click a bone, a handle or the character's mesh.",
  role: "The joint's role in the humanoid template: choosing another gives it that role's limits; (none) gives the default ±135° swing, ±90° twist.",
  on: {
    x: 'Limit the rotation about the x axis (across the limb: the bend of a knee or an elbow); untick to leave it free.',
    y: 'Limit the twist about the bone itself (its y axis); untick to leave it free.',
    z: 'Limit the rotation about the z axis (the sideways swing); untick to leave it free.',
  },
  min: 'Least angle about this axis, in degrees (−180 to 180, not above max); applied at once, undo with Ctrl+Z.',
  max: 'Greatest angle about this axis, in degrees (−180 to 180, not below min); applied at once, undo with Ctrl+Z.',
  mapping: 'Which joint took which role in the humanoid template (found from the names or the shape); click a joint to select it.',
} as const;

export interface JointPanelOptions {
  showError(message: string): void;
  clearError?(): void;
  /** Worker mode: the simulation's world is in the worker, so the joints are not edited here. */
  worker?: { on: boolean };
}

export interface JointPanel {
  readonly folder: GUI;
  readonly joints: JointEditing;
  /** Show the selected joint and the rig's mapping as they are now. */
  refresh(): void;
}

/** Mount the joint folder on `gui`, before its Advanced fold; in worker mode only a note that it is off (null). */
export function mountJointPanel(gui: GUI, sandbox: Sandbox, options: JointPanelOptions): JointPanel | null {
  if (options.worker?.on || sandbox.unavailable.includes('undo')) {
    const folder = gui.addFolder('joint').close();
    folder.$title.title = JOINT_TIPS.folder;
    const note = document.createElement('p');
    note.className = 'joint-off';
    Object.assign(note.style, { margin: '4px 8px', font: '11px/1.4 system-ui, sans-serif', opacity: '0.8' } satisfies Partial<CSSStyleDeclaration>);
    note.textContent = "Joint limits and roles are edited on the main thread's world: untick \"simulation in a worker\" to edit them.";
    folder.$children.append(note);
    gui.folders.find((f) => f._title === 'Advanced')?.domElement.before(folder.domElement);
    return null;
  }
  const joints = createJointEditing({
    world: sandbox.world,
    get rig() { return sandbox.rig; },
    history: sandbox.history,
    rigDescription: () => (JSON.parse(sandbox.sceneFile()) as { rig: RigDescription }).rig,
    // a character keeps its roles as edited with its file, for the next reload
    mappingChanged(mapping) {
      const name = sandbox.character.file?.name;
      if (name) void saveCharacterMapping(name, mapping).catch(() => undefined);
    },
    limitsChanged: (bones) => mirrorLimits(bones),
  });
  /** The compare ghost gets the joints' limits as they now are (a ghost that refuses one keeps its own). */
  function mirrorLimits(bones: readonly string[]): void {
    const ghost = sandbox.compare;
    if (!ghost) return;
    for (const b of bones) {
      try { setJointLimits(ghost.world, ghost.rig, b, getJointLimits(sandbox.world, sandbox.rig, b)); } catch { /* its own stays */ }
    }
  }
  /** The rig, character and kept mapping last taken (a reload puts the mapping there after the rig is loaded). */
  let keptFor = '';
  function adoptKept(): void {
    const kept = sandbox.character.keptMapping;
    const key = `${sandbox.rig} ${sandbox.character.file?.name ?? ''} ${kept ? 'kept' : ''}`;
    if (key === keptFor) return;
    keptFor = key;
    if (!kept) return;
    joints.adoptMapping(kept);
    shownMapping = '';
    refresh();
  }
  const folder = gui.addFolder('joint');
  folder.$title.title = JOINT_TIPS.folder;
  const advanced = gui.folders.find((f) => f._title === 'Advanced');
  if (advanced && advanced !== folder) advanced.domElement.before(folder.domElement);

  const state: Record<string, unknown> = { joint: NONE, role: NONE };
  for (const a of AXES) { state[`${a}On`] = false; state[`${a}Min`] = 0; state[`${a}Max`] = 0; }
  const tip = <C extends Controller>(c: C, text: string) => { c.domElement.title = text; return c; };

  let jointC = tip(folder.add(state, 'joint', [NONE]).name('joint'), JOINT_TIPS.joint);
  jointC.onFinishChange((name: string) => {
    const b = name === NONE ? -1 : sandbox.bones[name] ?? -1;
    sandbox.view.setSelectedBone(b);
    refresh();
  });
  const roleC = tip(folder.add(state, 'role', [NONE, ...TEMPLATE_ROLES]).name('template role'), JOINT_TIPS.role);
  roleC.onFinishChange((role: string) => {
    const bone = selectedBoneName(sandbox);
    if (bone) attempt(`the role of ${bone}`, () => joints.setRole(bone, role === NONE ? null : (role as TemplateRole)));
    else refresh();
  });
  const axisControllers: Controller[] = [];
  for (const a of AXES) {
    const on = tip(folder.add(state, `${a}On`).name(`${a} limited`), JOINT_TIPS.on[a]);
    on.onChange((v: boolean) => {
      if (v) { state[`${a}Min`] = -NEW_AXIS_LIMIT; state[`${a}Max`] = NEW_AXIS_LIMIT; }
      apply(a);
    });
    const min = tip(folder.add(state, `${a}Min`).name(`${a} min (°)`), JOINT_TIPS.min).onFinishChange(() => apply(a));
    const max = tip(folder.add(state, `${a}Max`).name(`${a} max (°)`), JOINT_TIPS.max).onFinishChange(() => apply(a));
    axisControllers.push(on, min, max);
  }
  const mappingBox = document.createElement('div');
  mappingBox.className = 'joint-mapping';
  mappingBox.title = JOINT_TIPS.mapping;
  Object.assign(mappingBox.style, { padding: '4px 8px 6px', font: '11px/1.5 system-ui, sans-serif', maxHeight: '180px', overflowY: 'auto' } satisfies Partial<CSSStyleDeclaration>);
  folder.$children.append(mappingBox);


  function apply(axis: Axis): void {
    const bone = selectedBoneName(sandbox);
    if (!bone) { refresh(); return; }
    const limit = state[`${axis}On`] ? [Number(state[`${axis}Min`]), Number(state[`${axis}Max`])] : 'free';
    attempt(`the ${axis} limit of ${bone}`, () => joints.setLimits(bone, { [axis]: limit } as Partial<JointLimits>));
  }

  function attempt(what: string, action: () => void): void {
    try {
      action();
      options.clearError?.();
    } catch (e) {
      options.showError(`could not set ${what}:\n${e instanceof Error ? e.message : String(e)}`);
    }
    refresh();
  }

  let shownRig = -1, shownBone = -2, shownMapping = '';
  function refresh(): void {
    if (shownRig !== sandbox.rig) {
      shownRig = sandbox.rig;
      // the same controller, its choices replaced (it keeps its place and tooltip)
      jointC = (jointC as unknown as { options(o: string[]): Controller }).options([NONE, ...joints.bones()]);
    }
    shownBone = sandbox.view.selectedBone;
    const bone = selectedBoneName(sandbox);
    state.joint = bone ?? NONE;
    state.role = bone ? joints.roleOf(bone) ?? NONE : NONE;
    roleC.disable(!bone);
    const editable = bone !== null && joints.hasJoint(bone);
    const limits = editable ? joints.limits(bone) : null;
    for (const a of AXES) {
      const l = limits?.[a] ?? 'free';
      state[`${a}On`] = l !== 'free';
      // a free axis shows the range a tick would give it
      state[`${a}Min`] = l === 'free' ? -NEW_AXIS_LIMIT : l[0];
      state[`${a}Max`] = l === 'free' ? NEW_AXIS_LIMIT : l[1];
    }
    axisControllers.forEach((c, i) => c.disable(!editable || (i % 3 !== 0 && !state[`${AXES[Math.floor(i / 3)]!}On`])));
    for (const c of [jointC, roleC, ...axisControllers]) c.updateDisplay();
    writeMapping(bone);
  }

  function writeMapping(bone: string | null): void {
    const m = joints.mapping;
    const key = `${sandbox.rig} ${bone} ${JSON.stringify(m)}`;
    if (key === shownMapping) return;
    shownMapping = key;
    mappingBox.replaceChildren();
    const head = document.createElement('div');
    head.textContent = joints.method === 'none' ? 'not recognised as a humanoid (set roles below the joint)'
      : `humanoid mapping (found by ${joints.method === 'names' ? 'bone names' : "the skeleton's shape"}):`;
    mappingBox.append(head);
    for (const role of TEMPLATE_ROLES) {
      const held = role === 'spine' || role === 'neck' ? m[role] : m[role] ? [m[role]] : [];
      if (!held.length) continue;
      const row = document.createElement('div');
      row.append(`${role}: `);
      held.forEach((name, i) => {
        const b = document.createElement('button');
        b.type = 'button';
        b.textContent = name;
        b.title = `Select ${name} (its limits above)`;
        Object.assign(b.style, {
          // (lil-gui makes its buttons full width: these are words in a line)
          display: 'inline-block', width: 'auto', height: 'auto', lineHeight: '1.4',
          font: 'inherit', padding: '0 4px', margin: '0 2px 1px 0', cursor: 'pointer', borderRadius: '3px',
          border: '1px solid #4a5260', background: name === bone ? '#3d6fa8' : 'transparent', color: 'inherit',
        } satisfies Partial<CSSStyleDeclaration>);
        b.addEventListener('click', () => {
          sandbox.view.setSelectedBone(sandbox.bones[name] ?? -1);
          refresh();
        });
        if (i > 0) row.append(' ');
        row.append(b);
      });
      mappingBox.append(row);
    }
  }

  const onChange = sandbox.onChange, onLive = sandbox.onLive;
  sandbox.onChange = () => { onChange?.(); refresh(); };
  // a bone pressed in the view changes the selection without telling the panel: look about ten times a second
  sandbox.onLive = () => {
    onLive?.();
    if (sandbox.view.selectedBone !== shownBone || sandbox.rig !== shownRig) refresh();
    adoptKept(); // (a character's file is attached after its rig is loaded)
  };
  refresh();
  return { folder, joints, refresh };
}
