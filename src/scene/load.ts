/**
 * Scene files' text: parsed with JSON errors that name the line and column, nesting too deep
 * and duplicate keys refused before the text is parsed; then validated (src/core/validation,
 * re-exported here). Browser-safe: the file-reading `loadSceneFile` lives in `loadFile.ts` so
 * bundles never pull in `node:fs`.
 */
import type { Scene } from './types';
import { formatPath, MAX_DEPTH, type SceneIssue } from '../core/validation/check';
import { describe, SceneError, validateScene } from '../core/validation/parse';

export { SceneError, validateScene, parseScene, parseControlPoint, issuesFromZod, MAX_ISSUES } from '../core/validation/parse';
export type { SceneIssue } from '../core/validation/check';

function lineColumn(text: string, index: number): string {
  const before = text.slice(0, index);
  const line = before.split('\n').length;
  return `line ${line}, column ${index - before.lastIndexOf('\n')}`;
}

/** First NaN / Infinity token outside a string: valid JavaScript, invalid JSON. */
function findBareNumber(text: string): { index: number; token: string } | undefined {
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === 'N' || c === 'I' || c === '-') {
      const m = /^-?(?:NaN|Infinity)/.exec(text.slice(i, i + 9));
      if (m) return { index: i, token: m[0] };
    }
  }
  return undefined;
}

/**
 * Index of the first character that makes `text` invalid JSON (`text.length` when it ends
 * too early), or -1 when it is valid. V8's messages give no position for an unexpected token;
 * this finds one, so every syntax error can name its line. Iterative: any nesting depth.
 */
export function jsonErrorIndex(text: string): number {
  const n = text.length;
  const stack: string[] = [];
  let i = 0;
  const ws = () => { while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++; };
  const str = (): boolean => { // at '"'; moves past the closing quote
    for (i++; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === 34) { i++; return true; }
      if (c < 0x20) return false;
      if (c === 92) {
        const e = text[++i];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) return false;
          i += 4;
        } else if (e === undefined || !'"\\/bfnrt'.includes(e)) return false;
      }
    }
    return false;
  };
  const literal = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;
  let wantValue = true;
  for (;;) {
    ws();
    if (wantValue) {
      const c = text[i];
      if (c === '{' || c === '[') {
        stack.push(c);
        i++;
        ws();
        if (text[i] === (c === '{' ? '}' : ']')) { stack.pop(); i++; wantValue = false; continue; }
        if (c === '[') continue;
      } else if (c === '"') {
        if (!str()) return Math.min(i, n);
        wantValue = false;
        continue;
      } else {
        literal.lastIndex = i;
        if (!literal.test(text)) return i;
        i = literal.lastIndex;
        wantValue = false;
        continue;
      }
      // an object's key
      if (text[i] !== '"' || !str()) return Math.min(i, n);
      ws();
      if (text[i] !== ':') return i;
      i++;
      continue;
    }
    const top = stack.at(-1);
    if (top === undefined) return i < n ? i : -1;
    const c = text[i];
    if (c === (top === '{' ? '}' : ']')) { stack.pop(); i++; continue; }
    if (c !== ',') return i;
    i++;
    wantValue = true;
    if (top === '{') {
      ws();
      if (text[i] !== '"' || !str()) return Math.min(i, n);
      ws();
      if (text[i] !== ':') return i;
      i++;
    }
  }
}

/** Line and column of indices into one text: the line starts found once (linear for any number of lookups). */
function lineColumns(text: string): (index: number) => string {
  let starts: number[] | undefined;
  return (index) => {
    if (!starts) {
      starts = [0];
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    }
    let lo = 0, hi = starts.length - 1; // the last line start <= index
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= index) lo = mid;
      else hi = mid - 1;
    }
    return `line ${lo + 1}, column ${index - starts[lo]! + 1}`;
  };
}

/** Duplicate keys listed one by one; beyond, one issue counts the rest. */
const MAX_DUPLICATES_LISTED = 20;

/**
 * What JSON.parse accepts but a scene must not have, found in the text in one linear pass
 * before it is parsed: a key given twice in one object (JSON.parse keeps the last silently),
 * and arrays or objects nested deeper than MAX_DEPTH (then the scan stops there: V8 parses a
 * 16 MB file of nested arrays slowly; docs/robustness.md has the figure). It jumps from one
 * bracket, comma or quote to the next, and builds paths only for what it reports. Text that is
 * not JSON is scanned without failing (JSON.parse then names its error).
 */
export function scanJsonText(text: string): { duplicates: SceneIssue[]; depth: SceneIssue | undefined } {
  interface Frame { keys: Map<string, number> | undefined; key: string | number; wantKey: boolean }
  const duplicates: SceneIssue[] = [];
  let more = 0;
  const at = lineColumns(text);
  const stack: Frame[] = [];
  const pathOf = () => formatPath(stack.map((f) => f.key));
  const structural = /[{}[\],"]/g;
  for (let m = structural.exec(text); m; m = structural.exec(text)) {
    const i = m.index;
    const c = text.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (c === 123 || c === 91) { // { [
      if (stack.length + 1 > MAX_DEPTH) {
        const depth = { path: pathOf(), message: `expected arrays and objects nested at most ${MAX_DEPTH} levels deep, got ${c === 123 ? 'an object' : 'an array'} at level ${stack.length + 1} (${at(i)})` };
        return { duplicates, depth };
      }
      stack.push(c === 123 ? { keys: new Map(), key: '', wantKey: true } : { keys: undefined, key: 0, wantKey: false });
    } else if (c === 125 || c === 93) { // } ]
      stack.pop();
    } else if (c === 44) { // ,
      if (top?.keys) top.wantKey = true;
      else if (top) (top.key as number)++;
    } else { // a string: its end is the next quote not escaped
      let end = text.indexOf('"', i + 1);
      for (;;) {
        if (end < 0) return { duplicates, depth: undefined }; // unterminated: not JSON
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === 92) slashes++;
        if (slashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      structural.lastIndex = end + 1;
      if (top?.keys && top.wantKey) {
        let key = text.slice(i + 1, end);
        if (key.includes('\\')) {
          try { key = JSON.parse(text.slice(i, end + 1)) as string; } catch { /* not JSON: JSON.parse reports it */ }
        }
        top.key = key;
        top.wantKey = false;
        const first = top.keys.get(key);
        if (first === undefined) top.keys.set(key, i);
        else if (duplicates.length < MAX_DUPLICATES_LISTED) {
          duplicates.push({ path: pathOf(), message: `expected each key once in an object, got ${JSON.stringify(key)} again at ${at(i)} (first at ${at(first)}; JSON would keep only the last)` });
        } else more++;
      }
    }
  }
  if (more) duplicates.push({ path: '(root)', message: `expected each key once in an object, got ${more} more keys given twice (not listed)` });
  return { duplicates, depth: undefined };
}

/** Parse JSON text, then the scene. JSON syntax errors name the line and column when known. */
export function parseSceneText(text: string, file?: string): Scene {
  let data: unknown;
  if (typeof text !== 'string') throw new SceneError([{ path: '(root)', message: `expected the text of a scene file, got ${describe(text)}` }], file);
  text = text.replace(/^\uFEFF/, ''); // a UTF-8 byte order mark (Windows editors) is not an error
  // nesting too deep is refused before the text is parsed; duplicate keys with everything else
  const { duplicates, depth } = scanJsonText(text);
  if (depth) throw new SceneError([...duplicates, depth], file);
  try {
    data = JSON.parse(text);
  } catch (e) {
    const raw = e instanceof Error ? e.message : String(e);
    // V8 reports "... at position N" for most errors but not for an unexpected token.
    const pos = /at position (\d+)/.exec(raw);
    const at = pos ? Number(pos[1]) : jsonErrorIndex(text);
    const bare = findBareNumber(text);
    const what = raw.replace(/ in JSON at position.*$/s, '').replace(/, (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s, '');
    let message: string;
    if (text.trim() === '') {
      message = 'empty file (expected a scene: a JSON object with name and rig)';
    } else if (bare && (at < 0 || at >= bare.index)) {
      message = `invalid JSON at ${lineColumn(text, bare.index)}: ${bare.token} is not allowed in JSON (use a finite number)`;
    } else if (at >= text.length) {
      message = `invalid JSON at ${lineColumn(text, text.length)}: the text ends before the JSON is complete (file truncated?)`;
    } else if (at >= 0) {
      message = `invalid JSON at ${lineColumn(text, at)}: ${what}`;
    } else {
      message = `invalid JSON: ${raw}`;
    }
    throw new SceneError([{ path: '(root)', message }], file);
  }
  const r = validateScene(data, file);
  if (r.ok && duplicates.length === 0) return r.scene;
  throw new SceneError([...duplicates, ...(r.ok ? [] : r.issues)], file);
}
