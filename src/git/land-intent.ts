import { readFile, unlink } from 'node:fs/promises';
import { WiggumError, systemErrorCode } from '../errors.js';
import { writeFileAtomic } from '../store/atomic-write.js';

/**
 * What a `merge` landing is doing, written before each step that changes the repository, so that a
 * crash anywhere leaves enough on disk for the next start to finish it or undo it
 * (`recoverLanding`). The caller chooses the file (the task's session folder, beside its
 * checkpoint, is the natural place); it exists only while a landing is under way.
 *
 * - `merging`: the merged commit exists (unreferenced, harmless) and a scratch worktree may hold it
 *   for the verify check; the base ref has not been touched.
 * - `updating`: the check passed; the base ref is being moved from `oldBase` to `newBase`
 *   (compare-and-swap) and the user's clean checkouts of the base made to follow.
 */
export interface LandingIntent {
  version: 1;
  /** A work tree of the repository, where git is run (the user's copy is only read unless it follows). */
  repo: string;
  branch: string;
  base: string;
  oldBase: string;
  newBase: string;
  how: 'ff' | 'merge-commit';
  /** The scratch worktree holding `newBase` for the verify check, or null when none was made. */
  scratch: string | null;
  phase: 'merging' | 'updating';
}

/** The repository as a new start finds it, read for `recoverLanding`. */
export interface LandingRepoState {
  /** Where `refs/heads/<base>` points now (null: the branch is gone). */
  baseTip: string | null;
  /** Whether `newBase` is in the base's history (the landing happened and the base moved on since). */
  newBaseInBase: boolean;
  scratchExists: boolean;
  /**
   * The work trees that have the base checked out, and what their index holds: the tree of
   * `oldBase` (a crash came between moving the ref and following), of `newBase`, or something else.
   */
  checkouts: Array<{ path: string; indexAt: 'old' | 'new' | 'other' }>;
}

/**
 * - `finish`: the base holds the landing; make these checkouts follow (their index still holds the
 *   old base, so they would show the landing undone as local changes), drop the scratch worktree.
 * - `undo`: the base was not moved (or was moved by someone else); drop the scratch worktree and land
 *   again from the start, which re-merges and re-runs the check on whatever the base is now.
 */
export type LandingRecovery =
  | { action: 'finish'; follow: string[]; removeScratch: boolean; reason: string }
  | { action: 'undo'; removeScratch: boolean; reason: string };

/** What to do with a landing a crash interrupted. Pure: the table test is the specification. */
export function recoverLanding(intent: LandingIntent, state: LandingRepoState): LandingRecovery {
  const removeScratch = intent.scratch !== null && state.scratchExists;
  if (state.baseTip === null)
    return { action: 'undo', removeScratch, reason: `the base ${intent.base} no longer exists` };
  if (state.baseTip === intent.newBase) {
    if (intent.phase === 'merging')
      // Only `updating` moves the ref; the base at newBase before that is a fast-forward someone
      // else made (or the same branch landed twice). Either way the work is in the base.
      return { action: 'finish', follow: [], removeScratch, reason: `${intent.base} already holds the landing` };
    const follow = state.checkouts.filter((checkout) => checkout.indexAt === 'old').map((checkout) => checkout.path);
    return { action: 'finish', follow, removeScratch, reason: `${intent.base} was moved; finishing what follows` };
  }
  if (intent.phase === 'updating' && state.newBaseInBase)
    return {
      action: 'finish',
      follow: [],
      removeScratch,
      reason: `${intent.base} holds the landing and has moved on since`,
    };
  if (state.baseTip === intent.oldBase)
    return { action: 'undo', removeScratch, reason: `${intent.base} was not moved yet; landing again` };
  return { action: 'undo', removeScratch, reason: `${intent.base} moved meanwhile; landing again on its new tip` };
}

export async function writeLandingIntent(file: string, intent: LandingIntent): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(intent, null, 2)}\n`);
}

/** The intent in `file`, or null when no landing is under way. */
export async function readLandingIntent(file: string): Promise<LandingIntent | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return null;
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<LandingIntent>;
    if (parsed.version !== 1 || typeof parsed.base !== 'string' || typeof parsed.newBase !== 'string')
      throw new Error('not a landing intent of version 1');
    return parsed as LandingIntent;
  } catch (cause) {
    throw new WiggumError(
      'E_GIT',
      `the landing record ${file} is unreadable; check the base branch by hand and delete the file`,
      { cause, details: { file } },
    );
  }
}

export async function clearLandingIntent(file: string): Promise<void> {
  await unlink(file).catch((error: unknown) => {
    if (systemErrorCode(error) !== 'ENOENT') throw error;
  });
}
