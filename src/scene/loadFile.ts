/**
 * Node-only scene loading. Kept apart from `load.ts` so browser bundles never import `node:fs`.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Scene } from './types';
import { parseSceneText, SceneError } from './load';

/** Largest scene file read (the sandbox's limit for an opened file too; a 10,000-bone rig is about 1.5 MB). */
export const MAX_SCENE_BYTES = 16 * 1024 * 1024;

const mb = (n: number) => `${(n / 1048576).toFixed(1)} MB`;

/**
 * Read a whole input file of at most `maxBytes`. Throws an Error whose message says what is
 * wrong in words (not found, a directory, over the limit, unreadable), without the path: callers
 * name the file in their own error type. Devices and pipes are read in chunks up to the limit,
 * so `/dev/zero` is refused instead of read forever.
 */
export function readInputFile(path: string, maxBytes: number): Buffer {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new Error('file not found');
    if (code === 'EISDIR') throw new Error('is a directory, not a file');
    if (code === 'EACCES' || code === 'EPERM') throw new Error('permission denied');
    throw new Error(`cannot read file: ${(e as Error).message}`);
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw new Error('is a directory, not a file');
    if (stat.isFile() && stat.size > maxBytes) throw new Error(`${mb(stat.size)} is over the ${mb(maxBytes)} limit for this kind of file`);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1 << 20, maxBytes + 1 - total));
      let n: number;
      try {
        n = readSync(fd, chunk, 0, chunk.length, null);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        throw new Error(code === 'EISDIR' ? 'is a directory, not a file' : `cannot read file: ${(e as Error).message}`);
      }
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > maxBytes) throw new Error(`more than ${mb(maxBytes)}, over the limit for this kind of file`);
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/** Largest clip file a scene's capture block may name (a long mocap take). */
export const MAX_CLIP_BYTES = 256 * 1024 * 1024;

/**
 * Read, parse and validate a scene file; every failure is a `SceneError` naming the file. A
 * capture block's clip `file` (relative to the scene file) is read into its `text`.
 */
export function loadSceneFile(path: string): Scene {
  let text: string;
  try {
    text = readInputFile(path, MAX_SCENE_BYTES).toString('utf8');
  } catch (e) {
    throw new SceneError([{ path: '(root)', message: (e as Error).message }], path);
  }
  const scene = parseSceneText(text, path);
  const clip = scene.capture?.clip;
  if (clip?.file !== undefined && clip.text === undefined) {
    const where = resolve(dirname(path), clip.file);
    try {
      clip.text = readInputFile(where, MAX_CLIP_BYTES).toString('utf8');
    } catch (e) {
      throw new SceneError([{ path: 'capture.clip.file', message: `${clip.file}: ${(e as Error).message}` }], path);
    }
  }
  return scene;
}
