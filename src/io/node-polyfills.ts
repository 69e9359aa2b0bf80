/**
 * The one browser API three.js's GLTFExporter needs that Node 20 lacks: `FileReader` (it
 * reads its merged `Blob` back with `readAsArrayBuffer`, and `readAsDataURL` for .gltf).
 * Node has `Blob` (with `arrayBuffer()`), so a small reader over it is enough.
 *
 * Pure JavaScript, no `node:` imports, and it installs nothing where a FileReader already
 * exists, so importing it from code that also runs in the browser is harmless there.
 * Limits: only what GLTFExporter uses (readAsArrayBuffer, readAsDataURL, result, onload,
 * onloadend, onerror); no progress events, no abort, no readAsText.
 */

interface MinimalReader {
  result: ArrayBuffer | string | null;
  error: unknown;
  readyState: number;
  onload: ((ev: { target: MinimalReader }) => void) | null;
  onloadend: ((ev: { target: MinimalReader }) => void) | null;
  onerror: ((ev: { target: MinimalReader }) => void) | null;
  readAsArrayBuffer(blob: Blob): void;
  readAsDataURL(blob: Blob): void;
}

function makeFileReader(): new () => MinimalReader {
  return class FileReaderShim implements MinimalReader {
    result: ArrayBuffer | string | null = null;
    error: unknown = null;
    readyState = 0;
    onload: MinimalReader['onload'] = null;
    onloadend: MinimalReader['onloadend'] = null;
    onerror: MinimalReader['onerror'] = null;

    readAsArrayBuffer(blob: Blob): void {
      this.read(blob.arrayBuffer());
    }

    readAsDataURL(blob: Blob): void {
      this.read(blob.arrayBuffer().then((buf) => `data:${blob.type || 'application/octet-stream'};base64,${toBase64(new Uint8Array(buf))}`));
    }

    private read(value: Promise<ArrayBuffer | string>): void {
      this.readyState = 1;
      value.then(
        (v) => { this.result = v; this.readyState = 2; this.onload?.({ target: this }); this.onloadend?.({ target: this }); },
        (e) => { this.error = e; this.readyState = 2; this.onerror?.({ target: this }); this.onloadend?.({ target: this }); },
      );
    }
  };
}

function toBase64(bytes: Uint8Array): string {
  // btoa exists in Node ≥ 16 and every browser; chunked so String.fromCharCode's argument
  // count stays small
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** Install a minimal `FileReader` on globalThis if there is none (Node); no-op in browsers. */
export function ensureFileReader(): void {
  const g = globalThis as { FileReader?: unknown };
  if (typeof g.FileReader === 'undefined') g.FileReader = makeFileReader();
}
