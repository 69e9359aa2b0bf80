/**
 * Node-only scene loading. Kept apart from `load.ts` so browser bundles never import `node:fs`.
 */
import { readFileSync } from 'node:fs';
import type { Scene } from './types';
import { parseSceneText, SceneError } from './load';

/** Read, parse and validate a scene file; every failure is a `SceneError` naming the file. */
export function loadSceneFile(path: string): Scene {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const message = code === 'ENOENT' ? 'file not found' : `cannot read file: ${(e as Error).message}`;
    throw new SceneError([{ path: '(root)', message }], path);
  }
  return parseSceneText(text, path);
}
