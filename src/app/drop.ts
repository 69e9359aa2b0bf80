/**
 * Opening files in the sandbox: drag and drop onto the page, or the panel's "open file"
 * button. The file's content (text; bytes for .glb) goes to `onFile`; what is not a readable
 * file (a folder, an empty drop, a file over the size limit) goes to `onError` with the
 * reason. Of several files dropped at once, the first is opened. The page never navigates
 * away to show a dropped file.
 */

/** Largest file read (a scene of a few thousand bones is well under a megabyte). */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;

export interface FileSink {
  /** The file's content: text, or bytes for binary kinds (.glb). */
  onFile(data: string | ArrayBuffer, fileName: string): void;
  onError(message: string): void;
}

/** Extensions read as bytes; everything else is read as text. */
const BINARY = /\.glb$/i;

/** Read one File and pass it on (errors included). */
export async function readDroppedFile(file: File, sink: FileSink): Promise<void> {
  if (file.size > MAX_FILE_BYTES) {
    sink.onError(`${file.name}: ${(file.size / 1048576).toFixed(1)} MB is over the ${MAX_FILE_BYTES / 1048576} MB limit for a file to open`);
    return;
  }
  let data: string | ArrayBuffer;
  try {
    data = BINARY.test(file.name) ? await file.arrayBuffer() : await file.text();
  } catch (e) {
    sink.onError(`${file.name}: could not be read (${e instanceof Error ? e.message : String(e)})`);
    return;
  }
  sink.onFile(data, file.name);
}

/** Accept files dropped anywhere on `target`; returns a function that removes the listeners. */
export function installFileDrop(target: HTMLElement | Window, sink: FileSink): () => void {
  const over = (e: Event) => {
    e.preventDefault(); // without this the browser opens the file instead
    const dt = (e as DragEvent).dataTransfer;
    if (dt) dt.dropEffect = 'copy';
  };
  const drop = (e: Event) => {
    e.preventDefault();
    const files = (e as DragEvent).dataTransfer?.files;
    if (!files || files.length === 0) {
      sink.onError('nothing to open: drop a scene (.json) or a rig (.glb, .gltf, .bvh)');
      return;
    }
    void readDroppedFile(files[0]!, sink);
  };
  target.addEventListener('dragover', over);
  target.addEventListener('drop', drop);
  return () => {
    target.removeEventListener('dragover', over);
    target.removeEventListener('drop', drop);
  };
}
