/**
 * BVH → scene: reads a BVH file's HIERARCHY (joints, offsets, channels, end sites) and its
 * MOTION (frame time, channel values), and converts the skeleton's rest pose into a rig with
 * `jointsToRig` (rules in skeleton.ts). The result is a validated `Scene`: pure data that
 * `addRig` can take (it validates again), so a bad file never leaves a half-built rig.
 *
 * The parser is our own rather than three.js's BVHLoader (tests/unit/io/import.test.ts checks that
 * both read the same offsets and frames): BVHLoader's errors on malformed files name neither
 * the line nor the problem, and it makes every End Site a bone named "ENDSITE". This one
 * accepts any channel order, position channels on any joint, blank lines, tabs, CRLF,
 * keywords in any case, OFFSET and CHANNELS in either order, and joint names with spaces
 * (sanitised later); it reports the line of anything it cannot read, a file that ends inside
 * HIERARCHY, and a MOTION with fewer frames or values than it declares.
 *
 * Cost: the text is read a line at a time, never split whole, and the parser keeps its open
 * joints on an explicit stack (no recursion, however deep the file). HIERARCHY is checked
 * against the limits before the work they bound: at most MAX_IMPORT_DEPTH levels and
 * MAX_BONES joints, refused at the line that crosses them. MOTION is checked frame by frame as
 * it is read but not kept: `motion` is parsed from the text when first used (the result keeps
 * the text until then), so importing a rig from a 500 MB capture holds the hierarchy, not its
 * frames; `motion: false` does not read MOTION at all.
 *
 * Limits: one ROOT per file (a second skeleton is an error); one line per frame (as every
 * exporter writes); a joint's second End Site is ignored with a warning. `motion` holds the
 * file's raw channel values (file axes and units, degrees): it is not converted to the rig.
 */
import { MAX_BONES } from '../core/validation/check';
import { parseScene } from '../scene/load';
import type { Scene, Vec3Tuple } from '../scene/types';
import { applyHumanoidTemplate, humanoidReport, type HumanoidReport } from './humanoid';
import { baseName, defaultControlPoints, ImportError, jointsToRig, MAX_IMPORT_DEPTH, type JointsToRigOptions, type SkeletonJoint } from './skeleton';

export const bvhChannelNames = ['Xposition', 'Yposition', 'Zposition', 'Xrotation', 'Yrotation', 'Zrotation'] as const;
export type BvhChannelName = (typeof bvhChannelNames)[number];

export interface BvhJoint extends SkeletonJoint {
  /** OFFSET from the parent joint (file axes and units). */
  offset: Vec3Tuple;
  channels: BvhChannelName[];
  /** End Site OFFSET from this joint, if it has one. */
  endOffset?: Vec3Tuple;
  /** 1-based line of the JOINT/ROOT keyword. */
  line: number;
}

export interface BvhMotion {
  /** Seconds per frame. */
  frameTime: number;
  /**
   * Channel values per frame, in the order of `channels`, as written (rotations in degrees;
   * position channels raw: three.js's BVHLoader adds the joint's OFFSET to them).
   */
  frames: number[][];
  /** Every channel in file order: the joint's (sanitised, unique) name and the channel. */
  channels: { joint: string; channel: BvhChannelName }[];
}

export interface ParsedBvh {
  joints: BvhJoint[];
  motion?: BvhMotion;
  warnings: string[];
}

export interface BvhImportOptions extends Omit<JointsToRigOptions, 'file'>, ParseBvhOptions {
  /** Scene name (default: the file name without extension). */
  sceneName?: string;
  /**
   * Joint limits (default 'humanoid'): the humanoid template's hinges and ranges for a
   * character it recognises, anti-folding defaults for every other bone (humanoid.ts); 'none'
   * keeps the file's skeleton without limits.
   */
  template?: 'humanoid' | 'none';
  /** Add this many control points at the ends of the longest chains (default 0). */
  controlPoints?: number;
}

export interface BvhImport {
  scene: Scene;
  warnings: string[];
  /** Per BVH joint (file order): its name in the rig's vocabulary and the bone carrying it. */
  joints: { name: string; bone: string }[];
  /** What the humanoid template recognised (unless `template: 'none'`). */
  humanoid?: HumanoidReport;
  motion?: BvhMotion;
}

interface Token {
  text: string;
  line: number;
}

export interface ParseBvhOptions {
  /**
   * Read the MOTION section (default true): its frames are checked as the file is parsed and
   * `motion` is filled in on first use. false reads the HIERARCHY only and stops at the MOTION
   * keyword (a rig import), so a broken MOTION section goes unnoticed.
   */
  motion?: boolean;
}

const channelByLower = new Map<string, BvhChannelName>(bvhChannelNames.map((c) => [c.toLowerCase(), c]));

/** JavaScript's `\s`: what `trim()` and `split(/\s+/)` treat as blank. */
function isSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  return c >= 0xa0 && (c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff);
}

/**
 * Lines of a text without splitting it: `next()` moves to the following line and sets
 * `start`/`end` (offsets into the text, the line break excluded) and `line` (1-based), so a
 * file of millions of lines is read without an array of them. Breaks: \r\n, \r or \n.
 */
class LineReader {
  start = 0;
  end = 0;
  line = 0;
  private pos: number;
  private readonly br = /\r\n|\r|\n/g;
  constructor(private readonly text: string, from = 0, line = 0) {
    this.pos = from;
    this.line = line;
  }
  next(): boolean {
    if (this.pos > this.text.length) return false;
    this.br.lastIndex = this.pos;
    const m = this.br.exec(this.text);
    this.start = this.pos;
    this.end = m ? m.index : this.text.length;
    this.pos = m ? m.index + m[0].length : this.text.length + 1;
    this.line++;
    return true;
  }
  /** Whether the current line holds only blanks. */
  blank(): boolean {
    for (let i = this.start; i < this.end; i++) if (!isSpace(this.text.charCodeAt(i))) return false;
    return true;
  }
  /** Whether every line after the current one is blank. */
  restBlank(): boolean {
    for (let i = this.pos; i < this.text.length; i++) if (!isSpace(this.text.charCodeAt(i))) return false;
    return true;
  }
  text_(): string {
    return this.text.slice(this.start, this.end);
  }
}

/** Parse a BVH file; throws an ImportError naming the file and line on malformed input. */
export function parseBvh(text: string, file?: string, options: ParseBvhOptions = {}): ParsedBvh {
  const fail = (msg: string, line?: number): never => {
    throw new ImportError(file, line ? `line ${line}: ${msg}` : msg);
  };
  if (typeof text !== 'string') fail('expected the text of a BVH file');

  // HIERARCHY tokens, read a line at a time as the parser asks for them, up to the MOTION
  // keyword; braces are tokens even when glued to a word. Nothing after MOTION is tokenised.
  const reader = new LineReader(text, text.charCodeAt(0) === 0xfeff ? 1 : 0);
  const tokens: Token[] = [];
  let motionLine = -1; // 0-based line of the MOTION keyword
  let motionAt = -1; // offset just after it
  let scanned = false;
  const fill = (k: number): boolean => {
    while (tokens.length <= k && !scanned) {
      if (!reader.next()) {
        scanned = true;
        break;
      }
      const lineText = reader.text_();
      for (const m of lineText.matchAll(/[{}]|[^\s{}]+/g)) {
        if (m[0].toUpperCase() === 'MOTION') {
          motionLine = reader.line - 1;
          motionAt = reader.start + m.index + m[0].length;
          scanned = true;
          break;
        }
        tokens.push({ text: m[0], line: reader.line });
      }
    }
    return tokens.length > k;
  };
  const tokenAt = (k: number): Token | undefined => (fill(k) ? tokens[k] : undefined);

  let pos = 0;
  const warnings: string[] = [];
  const joints: BvhJoint[] = [];
  /** Joints whose '}' is still to come (innermost last), with what they have read so far. */
  interface Open { joint: BvhJoint; index: number; label: string; offset?: Vec3Tuple; channels?: BvhChannelName[] }
  const open: Open[] = [];
  const quote = (t: Token) => `'${t.text.length > 30 ? `${t.text.slice(0, 30)}...` : t.text}'`;
  const eof = (what: string): never => {
    const inner = open.at(-1)?.joint;
    const unclosed = inner ? `joint "${inner.name}" opened at line ${inner.line} is not closed` : '';
    if (motionLine >= 0 && inner) return fail(`MOTION inside HIERARCHY: ${unclosed} (a '}' is missing)`, motionLine + 1);
    if (motionLine >= 0) return fail(`MOTION inside HIERARCHY (${what})`, motionLine + 1);
    return fail(`file ends inside HIERARCHY (${what}${unclosed ? `; ${unclosed}` : ''})`);
  };
  const next = (what: string): Token => tokenAt(pos++) ?? eof(`expected ${what}`);
  const peek = () => tokenAt(pos);
  const is = (t: Token | undefined, word: string) => t !== undefined && t.text.toUpperCase() === word;
  const expectWord = (word: string, context = '') => {
    const t = next(word);
    if (!is(t, word.toUpperCase())) fail(`expected ${word}${context}, got ${quote(t)}`, t.line);
    return t;
  };
  const number = (what: string): number => {
    const t = next(what);
    const v = Number(t.text);
    if (t.text === '{' || t.text === '}' || !Number.isFinite(v) || !/^[-+]?(\d|\.\d)/.test(t.text)) fail(`expected a number for ${what}, got ${quote(t)}`, t.line);
    return v;
  };
  const vec3 = (what: string): Vec3Tuple => [number(`${what} x`), number(`${what} y`), number(`${what} z`)];

  const first = tokenAt(0);
  if (!first) fail(motionLine >= 0 ? `line ${motionLine + 1}: MOTION before any HIERARCHY` : 'empty file (expected HIERARCHY)');
  if (!is(first, 'HIERARCHY')) fail(`expected HIERARCHY at the start of a BVH file, got ${quote(first!)}`, first!.line);
  pos = 1;
  const rootTok = next('ROOT');
  if (!is(rootTok, 'ROOT')) fail(`expected ROOT, got ${quote(rootTok)}`, rootTok.line);

  /** Name: the rest of the keyword's line up to '{' (names with spaces exist in the wild). */
  const nameAfter = (kw: Token): string => {
    const parts: string[] = [];
    while (peek() && peek()!.line === kw.line && peek()!.text !== '{') parts.push(tokens[pos++]!.text);
    return parts.join(' ');
  };

  /** Start joint `kw` (ROOT or JOINT) under `parent`: its name, its '{'. */
  const openJoint = (kw: Token, parent: number) => {
    // the bone cap before the joints pile up: one bone per joint
    if (joints.length >= MAX_BONES) fail(`more than ${MAX_BONES} joints: a rig holds at most ${MAX_BONES} bones, one per joint`, kw.line);
    const index = joints.length;
    const joint: BvhJoint = { name: nameAfter(kw), parent, position: [0, 0, 0], offset: [0, 0, 0], channels: [], line: kw.line, where: `line ${kw.line}` };
    joints.push(joint);
    expectWord('{', ` after ${kw.text.toUpperCase()} ${joint.name}`.trimEnd());
    open.push({ joint, index, label: `joint "${joint.name || `#${index}`}"` });
  };

  // Depth first with an explicit stack of open joints: no recursion however deep the file.
  openJoint(rootTok, -1);
  while (open.length) {
    const cur = open.at(-1)!;
    const label = cur.label;
    const t = next(`JOINT, End Site or '}' in ${label}`);
    const word = t.text.toUpperCase();
    if (word === 'OFFSET') {
      if (cur.offset) fail(`${label} has a second OFFSET`, t.line);
      cur.offset = vec3(`OFFSET of ${label}`);
    } else if (word === 'CHANNELS') {
      if (cur.channels) fail(`${label} has a second CHANNELS`, t.line);
      const count = number(`the CHANNELS count of ${label}`);
      if (!Number.isInteger(count) || count < 0 || count > 6) fail(`CHANNELS count of ${label} must be 0 to 6, got ${count}`, t.line);
      const channels: BvhChannelName[] = [];
      for (let k = 0; k < count; k++) {
        const c = next(`channel ${k + 1} of ${count} of ${label}`);
        const name = channelByLower.get(c.text.toLowerCase());
        if (!name) fail(`expected a channel name (${bvhChannelNames.join(', ')}) for channel ${k + 1} of ${count} of ${label}, got ${quote(c)}`, c.line);
        if (channels.includes(name!)) fail(`${label} lists channel ${name} twice`, c.line);
        channels.push(name!);
      }
      cur.channels = channels;
    } else if (word === 'JOINT' || word === 'END' || word === '}') {
      if (!cur.offset) fail(`expected OFFSET in ${label} before ${quote(t)}`, t.line);
      if (!cur.channels) fail(`expected CHANNELS in ${label} before ${quote(t)}`, t.line);
      if (word === '}') {
        cur.joint.offset = cur.offset!;
        cur.joint.channels = cur.channels!;
        open.pop();
      } else if (word === 'JOINT') {
        if (open.length >= MAX_IMPORT_DEPTH) fail(`joints nested more than ${MAX_IMPORT_DEPTH} levels deep (JOINT inside ${label}); at most ${MAX_IMPORT_DEPTH} are supported`, t.line);
        openJoint(t, cur.index);
      } else {
        if (is(peek(), 'SITE') && peek()!.line === t.line) pos++;
        expectWord('{', ' after End Site');
        expectWord('OFFSET', ' in End Site');
        const end = vec3(`End Site OFFSET of ${label}`);
        expectWord('}', ' closing End Site');
        if (cur.joint.endOffset) warnings.push(`line ${t.line}: ${label} has a second End Site; ignored`);
        else cur.joint.endOffset = end;
      }
    } else if (word === 'ROOT') {
      fail(`ROOT inside ${label} (a '}' is missing before it)`, t.line);
    } else {
      fail(`expected OFFSET, CHANNELS, JOINT, End Site or '}' in ${label}, got ${quote(t)}`, t.line);
    }
  }

  const after = peek();
  if (after) {
    if (is(after, 'ROOT')) fail('a second ROOT: only one skeleton per file is supported', after.line);
    fail(`expected MOTION after the root's closing '}', got ${quote(after)} (unbalanced braces?)`, after.line);
  }

  // world positions (rest pose): root at its OFFSET, every child at parent + OFFSET
  for (const j of joints) {
    const p = j.parent >= 0 ? joints[j.parent]!.position : [0, 0, 0];
    j.position = [p[0]! + j.offset[0], p[1]! + j.offset[1], p[2]! + j.offset[2]];
    if (j.endOffset) j.endSite = [j.position[0] + j.endOffset[0], j.position[1] + j.endOffset[1], j.position[2] + j.endOffset[2]];
  }

  if (motionLine < 0) {
    warnings.push('no MOTION section: the skeleton only');
    return { joints, warnings };
  }
  if (options.motion === false) return { joints, warnings };
  // Check every frame now (errors and warnings belong to the parse) but keep none: the frames
  // are read again, into arrays, only when `motion` is first used.
  readMotion(text, motionAt, motionLine, joints, fail, warnings, false);
  let motion: BvhMotion | undefined;
  const result: ParsedBvh = { joints, warnings };
  Object.defineProperty(result, 'motion', {
    enumerable: true,
    configurable: true,
    get: () => (motion ??= readMotion(text, motionAt, motionLine, joints, fail, [], true)),
    set: (m: BvhMotion) => (motion = m),
  });
  return result;
}

/**
 * Whether text[a, b) is [-+]?digits[.digits] (or [-+]?.digits) with at most 300 digits before
 * the point: a finite number, as Number() would read it.
 */
function plainDecimal(text: string, a: number, b: number): boolean {
  let i = a;
  const c0 = text.charCodeAt(i);
  if (c0 === 43 || c0 === 45) i++;
  const intStart = i;
  while (i < b && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
  const intDigits = i - intStart;
  if (intDigits > 300) return false;
  let fracDigits = 0;
  if (i < b && text.charCodeAt(i) === 46) {
    i++;
    const f = i;
    while (i < b && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
    fracDigits = i - f;
  }
  return i === b && (intDigits > 0 ? true : fracDigits > 0);
}

/**
 * The MOTION section from just after its keyword (`from`, on 0-based line `motionLine`):
 * checks the frame count and time and every frame's values, naming the line of anything
 * wrong. Keeps the frames only when `keep`; otherwise `frames` is empty and memory stays
 * constant however long the section is.
 */
function readMotion(
  text: string,
  from: number,
  motionLine: number,
  joints: BvhJoint[],
  fail: (msg: string, line?: number) => never,
  warnings: string[],
  keep: boolean,
): BvhMotion {
  // the rest of the MOTION keyword's line is the first line read
  const r = new LineReader(text, from, motionLine);
  const nextLine = (what: string): string => {
    for (;;) {
      if (!r.next()) fail(`file ends in MOTION before ${what}`);
      if (!r.blank()) return r.text_();
    }
  };
  const framesText = nextLine('"Frames:"');
  const framesLine = r.line;
  const fm = /^\s*Frames\s*:?\s*(\S*)\s*$/i.exec(framesText);
  if (!fm) fail(`expected "Frames: <count>", got '${framesText.trim().slice(0, 40)}'`, framesLine);
  const frameCount = Number(fm![1]);
  if (!Number.isInteger(frameCount) || frameCount < 0 || fm![1] === '') fail(`expected a whole number of frames, got '${fm![1]}'`, framesLine);
  const timeText = nextLine('"Frame Time:"');
  const timeLine = r.line;
  const tm = /^\s*Frame\s*Time\s*:?\s*(\S*)\s*$/i.exec(timeText);
  if (!tm) fail(`expected "Frame Time: <seconds>", got '${timeText.trim().slice(0, 40)}'`, timeLine);
  const frameTime = Number(tm![1]);
  if (!(Number.isFinite(frameTime) && frameTime > 0) || tm![1] === '') fail(`expected a positive frame time in seconds, got '${tm![1]}'`, timeLine);

  const channels = joints.flatMap((j) => j.channels.map((channel) => ({ joint: j.name, channel })));
  const width = channels.length;
  const frames: number[][] = [];
  let found = 0;
  const digit = (c: number) => c >= 48 && c <= 57;
  while (found < frameCount && r.next()) {
    // one pass: count the values and note the first that is not a number; a wrong count is
    // reported before a bad value (the likelier cause of both)
    const values = keep ? new Array<number>(width) : undefined;
    let count = 0;
    let badAt = -1, badEnd = -1, badIndex = 0;
    for (let i = r.start; i < r.end; ) {
      while (i < r.end && isSpace(text.charCodeAt(i))) i++;
      if (i >= r.end) break;
      const a = i;
      while (i < r.end && !isSpace(text.charCodeAt(i))) i++;
      count++;
      if (badAt >= 0 || count > width) continue;
      // checking only: a plain decimal ("-12.5") is a finite number without making a string of it
      if (!values && plainDecimal(text, a, i)) continue;
      const v = Number(text.slice(a, i));
      // as a number's start: [-+]?(digit | .digit)
      const s = text.charCodeAt(a) === 43 || text.charCodeAt(a) === 45 ? a + 1 : a;
      const numeric = digit(text.charCodeAt(s)) || (text.charCodeAt(s) === 46 && s + 1 < i && digit(text.charCodeAt(s + 1)));
      if (!Number.isFinite(v) || !numeric) {
        badAt = a;
        badEnd = i;
        badIndex = count;
      } else if (values) values[count - 1] = v;
    }
    if (count === 0 && width > 0) continue; // blank lines between frames
    if (count !== width) {
      if (r.restBlank() && count < width) {
        fail(`file ends in the middle of frame ${found + 1} (${count} of ${width} values): MOTION says ${frameCount} frames, found ${found}`, r.line);
      }
      fail(`frame ${found + 1} has ${count} values, expected ${width} (one per channel of the hierarchy)`, r.line);
    }
    if (badAt >= 0) {
      const ch = channels[badIndex - 1]!;
      fail(`frame ${found + 1}: '${text.slice(badAt, Math.min(badEnd, badAt + 30))}' is not a number (value ${badIndex}, ${ch.joint || 'unnamed joint'} ${ch.channel})`, r.line);
    }
    if (values) frames.push(values);
    found++;
  }
  if (found < frameCount) fail(`MOTION says ${frameCount} frames, found ${found} (file truncated?)`);
  let extra = 0;
  while (r.next()) if (!r.blank()) extra++;
  if (extra > 0) warnings.push(`MOTION has ${extra} line(s) after its ${frameCount} frames; ignored`);
  return { frameTime, frames, channels };
}

/**
 * BVH text → a validated scene (plus the file's motion). Throws ImportError / SceneError.
 * `motion` is read from the text when first used (the frames are checked during the import);
 * with `motion: false` the MOTION section is not read at all.
 */
export function importBvh(text: string, file?: string, options: BvhImportOptions = {}): BvhImport {
  const { motion: readFrames, template, ...rigOptions } = options;
  const parsed = parseBvh(text, file, { motion: readFrames });
  const name = baseName(file, 'imported');
  const conv = jointsToRig(parsed.joints, { up: 'auto', ...rigOptions, name: rigOptions.name ?? name, file });
  const templ = (template ?? 'humanoid') === 'humanoid' ? applyHumanoidTemplate(conv.rig) : undefined;
  const rig = templ?.rig ?? conv.rig;
  const scene = parseScene(
    {
      name: rigOptions.sceneName ?? name,
      description: `Imported from ${file ?? 'a BVH file'}: ${parsed.joints.length} joints, ${conv.rig.bones.length} bones.`,
      rig,
      controlPoints: defaultControlPoints(rig, rigOptions.controlPoints ?? 0),
    },
    file,
  );
  const result: BvhImport = {
    scene,
    warnings: [...parsed.warnings, ...conv.warnings, ...(templ?.notes ?? [])],
    joints: conv.jointNames.map((n, i) => ({ name: n, bone: conv.boneOfJoint[i]! })),
    ...(templ ? { humanoid: humanoidReport(templ) } : {}),
  };
  if ('motion' in parsed) {
    // the channels under the rig's joint names; the frames parsed on first use
    const owner = parsed.joints.flatMap((j, i) => j.channels.map(() => i));
    let motion: BvhMotion | undefined;
    Object.defineProperty(result, 'motion', {
      enumerable: true,
      configurable: true,
      get: () => (motion ??= (() => {
        const m = parsed.motion!;
        return { ...m, channels: m.channels.map((c, i) => ({ ...c, joint: conv.jointNames[owner[i]!]! })) };
      })()),
      set: (m: BvhMotion) => (motion = m),
    });
  }
  return result;
}
