/**
 * BVH → scene: reads a BVH file's HIERARCHY (joints, offsets, channels, end sites) and its
 * MOTION (frame time, channel values), and converts the skeleton's rest pose into a rig with
 * `jointsToRig` (rules in skeleton.ts). The result is a validated `Scene`: pure data that
 * `addRig` can take (it validates again), so a bad file never leaves a half-built rig.
 *
 * The parser is our own rather than three.js's BVHLoader (tests/unit/io-import.test.ts checks that
 * both read the same offsets and frames): BVHLoader's errors on malformed files name neither
 * the line nor the problem, and it makes every End Site a bone named "ENDSITE". This one
 * accepts any channel order, position channels on any joint, blank lines, tabs, CRLF,
 * keywords in any case, OFFSET and CHANNELS in either order, and joint names with spaces
 * (sanitised later); it reports the line of anything it cannot read, a file that ends inside
 * HIERARCHY, and a MOTION with fewer frames or values than it declares.
 *
 * Limits: one ROOT per file (a second skeleton is an error); one line per frame (as every
 * exporter writes); a joint's second End Site is ignored with a warning. `motion` holds the
 * file's raw channel values (file axes and units, degrees): it is not converted to the rig.
 */
import { parseScene } from '../scene/load';
import type { Scene, Vec3Tuple } from '../scene/types';
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

export interface BvhImportOptions extends Omit<JointsToRigOptions, 'file'> {
  /** Scene name (default: the file name without extension). */
  sceneName?: string;
  /** Add this many control points at the ends of the longest chains (default 0). */
  controlPoints?: number;
}

export interface BvhImport {
  scene: Scene;
  warnings: string[];
  /** Per BVH joint (file order): its name in the rig's vocabulary and the bone carrying it. */
  joints: { name: string; bone: string }[];
  motion?: BvhMotion;
}

interface Token {
  text: string;
  line: number;
}

const channelByLower = new Map<string, BvhChannelName>(bvhChannelNames.map((c) => [c.toLowerCase(), c]));

/** Parse a BVH file; throws an ImportError naming the file and line on malformed input. */
export function parseBvh(text: string, file?: string): ParsedBvh {
  const fail = (msg: string, line?: number): never => {
    throw new ImportError(file, line ? `line ${line}: ${msg}` : msg);
  };
  if (typeof text !== 'string') fail('expected the text of a BVH file');
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);

  // HIERARCHY tokens up to the MOTION keyword; braces are tokens even when glued to a word.
  const tokens: Token[] = [];
  let motionLine = -1;
  for (let i = 0; i < lines.length && motionLine < 0; i++) {
    for (const m of lines[i]!.matchAll(/[{}]|[^\s{}]+/g)) {
      if (m[0].toUpperCase() === 'MOTION') {
        motionLine = i;
        break;
      }
      tokens.push({ text: m[0], line: i + 1 });
    }
  }

  let pos = 0;
  const warnings: string[] = [];
  const joints: BvhJoint[] = [];
  const open: BvhJoint[] = []; // joints whose '}' is still to come, for end-of-file messages
  const quote = (t: Token) => `'${t.text.length > 30 ? `${t.text.slice(0, 30)}...` : t.text}'`;
  const eof = (what: string): never => {
    const inner = open.at(-1);
    const unclosed = inner ? `joint "${inner.name}" opened at line ${inner.line} is not closed` : '';
    if (motionLine >= 0 && inner) return fail(`MOTION inside HIERARCHY: ${unclosed} (a '}' is missing)`, motionLine + 1);
    if (motionLine >= 0) return fail(`MOTION inside HIERARCHY (${what})`, motionLine + 1);
    return fail(`file ends inside HIERARCHY (${what}${unclosed ? `; ${unclosed}` : ''})`);
  };
  const next = (what: string): Token => tokens[pos++] ?? eof(`expected ${what}`);
  const peek = () => tokens[pos];
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

  const first = tokens[0];
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

  const parseJoint = (kw: Token, parent: number) => {
    const index = joints.length;
    const joint: BvhJoint = { name: nameAfter(kw), parent, position: [0, 0, 0], offset: [0, 0, 0], channels: [], line: kw.line };
    joints.push(joint);
    const label = `joint "${joint.name || `#${index}`}"`;
    expectWord('{', ` after ${kw.text.toUpperCase()} ${joint.name}`.trimEnd());
    open.push(joint);
    let offset: Vec3Tuple | undefined;
    let channels: BvhChannelName[] | undefined;
    for (;;) {
      const t = next(`JOINT, End Site or '}' in ${label}`);
      const word = t.text.toUpperCase();
      if (word === 'OFFSET') {
        if (offset) fail(`${label} has a second OFFSET`, t.line);
        offset = vec3(`OFFSET of ${label}`);
      } else if (word === 'CHANNELS') {
        if (channels) fail(`${label} has a second CHANNELS`, t.line);
        const count = number(`the CHANNELS count of ${label}`);
        if (!Number.isInteger(count) || count < 0 || count > 6) fail(`CHANNELS count of ${label} must be 0 to 6, got ${count}`, t.line);
        channels = [];
        for (let k = 0; k < count; k++) {
          const c = next(`channel ${k + 1} of ${count} of ${label}`);
          const name = channelByLower.get(c.text.toLowerCase());
          if (!name) fail(`expected a channel name (${bvhChannelNames.join(', ')}) for channel ${k + 1} of ${count} of ${label}, got ${quote(c)}`, c.line);
          if (channels.includes(name!)) fail(`${label} lists channel ${name} twice`, c.line);
          channels.push(name!);
        }
      } else if (word === 'JOINT' || word === 'END' || word === '}') {
        if (!offset) fail(`expected OFFSET in ${label} before ${quote(t)}`, t.line);
        if (!channels) fail(`expected CHANNELS in ${label} before ${quote(t)}`, t.line);
        if (word === '}') break;
        if (word === 'JOINT') {
          if (open.length >= MAX_IMPORT_DEPTH) fail(`joints nested more than ${MAX_IMPORT_DEPTH} levels deep (JOINT inside ${label}); at most ${MAX_IMPORT_DEPTH} are supported`, t.line);
          parseJoint(t, index);
        } else {
          if (is(peek(), 'SITE') && peek()!.line === t.line) pos++;
          expectWord('{', ' after End Site');
          expectWord('OFFSET', ' in End Site');
          const end = vec3(`End Site OFFSET of ${label}`);
          expectWord('}', ' closing End Site');
          if (joint.endOffset) warnings.push(`line ${t.line}: ${label} has a second End Site; ignored`);
          else joint.endOffset = end;
        }
      } else if (word === 'ROOT') {
        fail(`ROOT inside ${label} (a '}' is missing before it)`, t.line);
      } else {
        fail(`expected OFFSET, CHANNELS, JOINT, End Site or '}' in ${label}, got ${quote(t)}`, t.line);
      }
    }
    open.pop();
    joint.offset = offset!;
    joint.channels = channels!;
  };
  parseJoint(rootTok, -1);

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
  return { joints, motion: parseMotion(lines, motionLine, joints, fail, warnings), warnings };
}

function parseMotion(
  lines: string[],
  motionLine: number,
  joints: BvhJoint[],
  fail: (msg: string, line?: number) => never,
  warnings: string[],
): BvhMotion {
  // Everything after the MOTION keyword on its line, then the following lines.
  const rest = lines[motionLine]!.replace(/^.*?\bMOTION\b/i, '');
  const body: { text: string; line: number }[] = [{ text: rest, line: motionLine + 1 }];
  for (let i = motionLine + 1; i < lines.length; i++) body.push({ text: lines[i]!, line: i + 1 });
  let k = 0;
  const nextLine = (what: string) => {
    while (k < body.length && body[k]!.text.trim() === '') k++;
    if (k >= body.length) fail(`file ends in MOTION before ${what}`);
    return body[k++]!;
  };
  const framesLine = nextLine('"Frames:"');
  const fm = /^\s*Frames\s*:?\s*(\S*)\s*$/i.exec(framesLine.text);
  if (!fm) fail(`expected "Frames: <count>", got '${framesLine.text.trim().slice(0, 40)}'`, framesLine.line);
  const frameCount = Number(fm![1]);
  if (!Number.isInteger(frameCount) || frameCount < 0 || fm![1] === '') fail(`expected a whole number of frames, got '${fm![1]}'`, framesLine.line);
  const timeLine = nextLine('"Frame Time:"');
  const tm = /^\s*Frame\s*Time\s*:?\s*(\S*)\s*$/i.exec(timeLine.text);
  if (!tm) fail(`expected "Frame Time: <seconds>", got '${timeLine.text.trim().slice(0, 40)}'`, timeLine.line);
  const frameTime = Number(tm![1]);
  if (!(Number.isFinite(frameTime) && frameTime > 0) || tm![1] === '') fail(`expected a positive frame time in seconds, got '${tm![1]}'`, timeLine.line);

  const channels = joints.flatMap((j) => j.channels.map((channel) => ({ joint: j.name, channel })));
  const width = channels.length;
  const frames: number[][] = [];
  for (; k < body.length && frames.length < frameCount; k++) {
    const { text, line } = body[k]!;
    const parts = text.trim().split(/\s+/).filter((s) => s !== '');
    if (parts.length === 0 && width > 0) continue; // blank lines between frames
    if (parts.length !== width) {
      const last = body.slice(k + 1).every((b) => b.text.trim() === '');
      if (last && parts.length < width) {
        fail(`file ends in the middle of frame ${frames.length + 1} (${parts.length} of ${width} values): MOTION says ${frameCount} frames, found ${frames.length}`, line);
      }
      fail(`frame ${frames.length + 1} has ${parts.length} values, expected ${width} (one per channel of the hierarchy)`, line);
    }
    const values = new Array<number>(width);
    for (let c = 0; c < width; c++) {
      const v = Number(parts[c]);
      if (!Number.isFinite(v) || !/^[-+]?(\d|\.\d)/.test(parts[c]!)) {
        const ch = channels[c]!;
        fail(`frame ${frames.length + 1}: '${parts[c]!.slice(0, 30)}' is not a number (value ${c + 1}, ${ch.joint || 'unnamed joint'} ${ch.channel})`, line);
      }
      values[c] = v;
    }
    frames.push(values);
  }
  if (frames.length < frameCount) fail(`MOTION says ${frameCount} frames, found ${frames.length} (file truncated?)`);
  const extra = body.slice(k).filter((b) => b.text.trim() !== '').length;
  if (extra > 0) warnings.push(`MOTION has ${extra} line(s) after its ${frameCount} frames; ignored`);
  return { frameTime, frames, channels };
}

/** BVH text → a validated scene (plus the file's motion). Throws ImportError / SceneError. */
export function importBvh(text: string, file?: string, options: BvhImportOptions = {}): BvhImport {
  const parsed = parseBvh(text, file);
  const name = baseName(file, 'imported');
  const conv = jointsToRig(parsed.joints, { up: 'auto', ...options, name: options.name ?? name, file });
  const scene = parseScene(
    {
      name: options.sceneName ?? name,
      description: `Imported from ${file ?? 'a BVH file'}: ${parsed.joints.length} joints, ${conv.rig.bones.length} bones.`,
      rig: conv.rig,
      controlPoints: defaultControlPoints(conv.rig, options.controlPoints ?? 0),
    },
    file,
  );
  const motion = parsed.motion && {
    ...parsed.motion,
    channels: parsed.motion.channels.map((c, i) => ({ ...c, joint: conv.jointNames[jointOfChannel(parsed.joints, i)]! })),
  };
  return {
    scene,
    warnings: [...parsed.warnings, ...conv.warnings],
    joints: conv.jointNames.map((n, i) => ({ name: n, bone: conv.boneOfJoint[i]! })),
    ...(motion ? { motion } : {}),
  };
}

/** Index of the joint that owns channel `c` (channels are in joint order). */
function jointOfChannel(joints: BvhJoint[], c: number): number {
  let k = c;
  for (let j = 0; j < joints.length; j++) {
    if (k < joints[j]!.channels.length) return j;
    k -= joints[j]!.channels.length;
  }
  return -1;
}
