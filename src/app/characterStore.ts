/**
 * Imported characters kept across reloads (browser only): the opened file's bytes (or text)
 * under the name the address shows (`?scene=<name>`), with the scene as last edited (and the
 * humanoid mapping, when its roles were edited), in the
 * page's IndexedDB. A reload of `?scene=RiggedFigure` finds the character there and opens it
 * again, with its edits; the file itself never leaves the browser.
 *
 * Writes replace the entry whole (one IndexedDB put per save). Where IndexedDB is missing or
 * refuses (private windows, a full disk), saving is skipped and reported by the promise;
 * loading finds nothing.
 */

import type { HumanoidMapping } from '../io/humanoid';

const DB = 'physik-ecs';
const STORE = 'characters';

export interface StoredCharacter {
  /** The name in the address (the file's name without extension). */
  name: string;
  fileName: string;
  /** The file as opened: bytes for .glb, text for .gltf and .bvh. */
  data: ArrayBuffer | string;
  /** The scene file as last saved (the rig with its edits), JSON text; absent until edited. */
  sceneText?: string;
  /** The humanoid template's mapping as last edited in the joint panel (roles); absent until edited. */
  mapping?: HumanoidMapping;
  /** When it was saved (ms since 1970). */
  saved: number;
}

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    if (typeof indexedDB === 'undefined') { reject(new Error('this browser keeps no IndexedDB')); return; }
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => { if (!req.result.objectStoreNames.contains(STORE)) req.result.createObjectStore(STORE, { keyPath: 'name' }); };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB would not open'));
  });
}

async function run<T>(mode: IDBTransactionMode, body: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await open();
  try {
    return await new Promise<T>((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const req = body(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(req.result);
      tx.onerror = () => reject(tx.error ?? req.error ?? new Error('IndexedDB transaction failed'));
      tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
    });
  } finally {
    db.close();
  }
}

/** Keep a character (replacing one of the same name). */
export function saveCharacter(entry: Omit<StoredCharacter, 'saved'>): Promise<void> {
  return run('readwrite', (s) => s.put({ ...entry, saved: Date.now() })).then(() => undefined);
}

/**
 * Change part of a kept character (nothing when there is none by that name), read and written
 * in one transaction: two updates at once (the scene every few seconds, the mapping when a role
 * changes) cannot undo each other.
 */
async function update(name: string, patch: Partial<Omit<StoredCharacter, 'name'>>): Promise<void> {
  const db = await open();
  try {
    await new Promise<void>((resolve, reject) => {
      const tx = db.transaction(STORE, 'readwrite');
      const store = tx.objectStore(STORE);
      const req = store.get(name) as IDBRequest<StoredCharacter | undefined>;
      req.onsuccess = () => { if (req.result) store.put({ ...req.result, ...patch, saved: Date.now() }); };
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error ?? req.error ?? new Error('IndexedDB transaction failed'));
      tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
    });
  } finally {
    db.close();
  }
}

/** Update the scene of a kept character (nothing when there is none by that name). */
export function saveCharacterScene(name: string, sceneText: string): Promise<void> {
  return update(name, { sceneText });
}

/** Update the humanoid mapping of a kept character (nothing when there is none by that name). */
export function saveCharacterMapping(name: string, mapping: HumanoidMapping): Promise<void> {
  return update(name, { mapping });
}

/** The character kept under `name`, or undefined. */
export async function loadCharacter(name: string): Promise<StoredCharacter | undefined> {
  try {
    return (await run('readonly', (s) => s.get(name) as IDBRequest<StoredCharacter | undefined>)) ?? undefined;
  } catch {
    return undefined;
  }
}

/** Names of the kept characters. */
export async function characterNames(): Promise<string[]> {
  try {
    return ((await run('readonly', (s) => s.getAllKeys())) as IDBValidKey[]).map(String).sort();
  } catch {
    return [];
  }
}
