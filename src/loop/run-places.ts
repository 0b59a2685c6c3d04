// Where a run keeps its things and where its task file goes: the lowest of the run's ports
// (run-host.ts), apart so that the endings that use it sit below the host that names them.

/** The folders a run keeps its things in; a VaultLayout is one. */
export interface RunPlaces {
  /** What paths in reports and logs are relative to (the vault's root). */
  root: string;
  /** wiggum's own folder (`.wiggum/`): worktrees, landing files. */
  state: string;
  sessions: string;
  archive: string;
  /** Where a task without a workdir works. */
  workspaces: string;
  /** `<id>.lock` and the `<id>.ending` marker of a move not yet finished. */
  taskLocks: string;
}

/** Where a run's file goes when it leaves the folder it runs in (the marker of a cut move names it). */
export type EndKind = 'done' | 'rejected' | 'review' | 'blocked';

/** The task file's home: the folders its run ends it in. */
export interface TaskFileHome {
  /** The folder a task ending as `kind` goes to, for messages and for the move. */
  endFolder(kind: EndKind): string;
  /**
   * Moves an ended task's file into its end folder without overwriting another file (a clash gets
   * a suffix), dropping what steered its run (its stop flag); returns where it is now.
   */
  moveToEnd(kind: EndKind, file: string): Promise<string>;
  /** Whether a name in the task's folder can be a task file (a rename is followed only to one). */
  isTaskFileName: (name: string) => boolean;
}
