/**
 * Undo and redo for the sandbox's edits (control points added, removed, enabled, disabled,
 * targets moved). Each edit is a pair of closures that refer to control points by name, so
 * they still work after an undo re-creates a point under a new entity id.
 *
 * Limits: a bounded stack (default 200 edits); a new edit clears the redo side; an edit
 * whose undo throws (its point was removed by something outside the history) is dropped
 * with the error passed on.
 */

export interface Edit {
  /** Shown in the panel, e.g. "add pin2". */
  label: string;
  undo(): void;
  redo(): void;
}

export interface History {
  /** Record an edit that has already been applied. */
  push(edit: Edit): void;
  /** Apply an edit now and record it. */
  run(edit: Edit): void;
  undo(): Edit | undefined;
  redo(): Edit | undefined;
  clear(): void;
  readonly canUndo: boolean;
  readonly canRedo: boolean;
  /** Labels, oldest first (for tests and the panel). */
  readonly undoLabels: readonly string[];
  readonly redoLabels: readonly string[];
}

export function createHistory(limit = 200): History {
  const done: Edit[] = [];
  const undone: Edit[] = [];
  const push = (edit: Edit) => {
    done.push(edit);
    if (done.length > limit) done.shift();
    undone.length = 0;
  };
  return {
    push,
    run(edit) {
      edit.redo();
      push(edit);
    },
    undo() {
      const edit = done.pop();
      if (!edit) return undefined;
      edit.undo();
      undone.push(edit);
      return edit;
    },
    redo() {
      const edit = undone.pop();
      if (!edit) return undefined;
      edit.redo();
      done.push(edit);
      return edit;
    },
    clear() {
      done.length = 0;
      undone.length = 0;
    },
    get canUndo() { return done.length > 0; },
    get canRedo() { return undone.length > 0; },
    get undoLabels() { return done.map((e) => e.label); },
    get redoLabels() { return undone.map((e) => e.label); },
  };
}
