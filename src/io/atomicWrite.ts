/**
 * Writing a whole output file atomically (Node only): the data goes to a temporary file beside
 * the target (same directory, so the rename stays within one file system), is flushed to disk,
 * and only then renamed over the target. A reader sees the old file or the complete new one,
 * never a part; on any failure (disk full, file size limit, a signal before the rename) the
 * temporary file is removed and the old target is left byte for byte as it was. A target that
 * is a symbolic link is written through the link (the file it points to is replaced, the link
 * stays). An existing target keeps its permission bits.
 */
import { closeSync, fsyncSync, openSync, realpathSync, renameSync, statSync, chmodSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** Writes `data` in full to the open file `fd` (a test can pass a failing one). */
export type ChunkWriter = (fd: number, data: Uint8Array) => void;

const CHUNK = 1 << 24; // 16 MB per write call: large outputs are not copied again as a whole

function writeAll(fd: number, data: Uint8Array): void {
  for (let at = 0; at < data.byteLength;) at += writeSync(fd, data, at, Math.min(CHUNK, data.byteLength - at));
}

/**
 * Write `data` (text as UTF-8, or bytes) to `target` atomically. Throws an Error naming the
 * target and the reason; the target is then unchanged and no temporary file is left.
 */
export function writeFileAtomic(target: string, data: string | Uint8Array, write: ChunkWriter = writeAll): void {
  let real = target;
  let mode: number | undefined;
  try {
    real = realpathSync(target); // an existing file (through any links)
    mode = statSync(real).mode & 0o7777;
  } catch {
    // a new file: written where it is named
  }
  const temp = join(dirname(real), `.${basename(real)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(temp, 'wx', 0o666);
    write(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    if (mode !== undefined) chmodSync(temp, mode);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, real);
  } catch (e) {
    if (fd !== undefined) try { closeSync(fd); } catch { /* already failing */ }
    try { unlinkSync(temp); } catch { /* never created, or already gone */ }
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOSPC' ? 'no space left on the device'
      : code === 'EFBIG' ? 'over the file size limit'
      : code === 'EACCES' || code === 'EPERM' || code === 'EROFS' ? 'permission denied'
      : code === 'ENOENT' ? 'no such directory'
      : code === 'EISDIR' ? 'is a directory'
      : (e as Error).message;
    throw new Error(`cannot write ${target}: ${why}${mode !== undefined ? ' (the file is unchanged)' : ''}`);
  }
  // the rename itself is durable once the directory is flushed (not every file system allows it)
  try {
    const dir = openSync(dirname(real), 'r');
    try { fsyncSync(dir); } finally { closeSync(dir); }
  } catch {
    // best effort
  }
}
