/**
 * The sandbox's settings panel (lil-gui): scene picker, solver and simulation settings, and
 * play/pause, single step and reset buttons.
 *
 * Every edit goes through `setSettings`, which validates the whole patch; when it throws,
 * the message is shown in #error and the control goes back to the rig's current (valid)
 * value, so an out-of-range value is never applied. Number fields have no lil-gui min/max
 * (nothing is clamped while typing): the validation is what refuses a bad value.
 */
import GUI from 'lil-gui';
import { getSettings, setSettings } from '../core';
import { settingEnums } from '../core/settings';
import type { Settings } from '../scene/types';
import type { Sandbox } from './main';

/** Settings the panel edits, in display order, with their labels. */
const fields: { key: keyof Settings; label: string }[] = [
  { key: 'solver', label: 'solver' },
  { key: 'spring', label: 'spring kind' },
  { key: 'stiffness', label: 'stiffness' },
  { key: 'cap', label: 'cap' },
  { key: 'damping', label: 'damping' },
  { key: 'angularDamping', label: 'angular damping' },
  { key: 'dt', label: 'dt' },
  { key: 'integrator', label: 'integrator' },
  { key: 'interpolation', label: 'interpolation' },
  { key: 'interpolationSteps', label: 'interpolation steps' },
  { key: 'epsilon', label: 'epsilon' },
  { key: 'maxPasses', label: 'pass cap' },
  { key: 'interJoint', label: 'inter-joint' },
];

export interface PanelOptions {
  /** Every scene name the sandbox can load. */
  sceneNames: string[];
  /** Show a message in the page's visible error element. */
  showError(message: string): void;
  /** Hide the error element (after a successful edit). */
  clearError?(): void;
}

export function createPanel(sandbox: Sandbox, options: PanelOptions): GUI {
  const { world, rig } = sandbox;
  const gui = new GUI({ title: 'physik' });
  gui.domElement.style.top = '30px'; // below the status line

  const state: Record<string, unknown> = { scene: sandbox.sceneName };
  gui.add(state, 'scene', [...options.sceneNames].sort()).name('scene').onFinishChange((name: string) => {
    const url = new URL(location.href);
    url.searchParams.set('scene', name);
    location.href = url.toString();
  });

  const settings = gui.addFolder('settings');
  let showing = false; // whether #error holds a message from this panel
  const current = getSettings(world, rig);
  for (const { key, label } of fields) {
    state[key] = current[key];
    const choices = settingEnums[key];
    const c = choices ? settings.add(state, key, [...choices]) : settings.add(state, key);
    c.name(label).onFinishChange((value: unknown) => {
      try {
        setSettings(world, rig, { [key]: value } as Partial<Settings>);
        if (showing) { options.clearError?.(); showing = false; }
      } catch (e) {
        options.showError(`could not set ${label}:\n${e instanceof Error ? e.message : String(e)}`);
        showing = true;
      }
      // show what the rig actually has: the new value, or the old one when refused
      state[key] = getSettings(world, rig)[key];
      c.updateDisplay();
    });
  }

  const blur = () => { if (document.activeElement instanceof HTMLElement) document.activeElement.blur(); };
  const actions = {
    playPause() { sandbox.setPaused(!sandbox.paused); blur(); },
    step() { sandbox.setPaused(true); sandbox.stepOnce(); blur(); },
    reset() { sandbox.reset(); blur(); },
  };
  gui.add(actions, 'playPause').name('play / pause');
  gui.add(actions, 'step').name('single step');
  gui.add(actions, 'reset').name('reset');

  return gui;
}
