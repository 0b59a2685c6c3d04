import { existsSync } from 'node:fs';
import { indexAt, listWorktrees } from './base-checkouts.js';
import { git } from './git.js';
import { clearLandingIntent, readLandingIntent, recoverLanding } from './land-intent.js';
import type { LandingIntent, LandingRecovery, LandingRepoState } from './land-intent.js';
import { follow, removeScratch } from './land-merge.js';

/** What a start did about a landing a crash interrupted. */
export interface ResumedLanding {
  intent: LandingIntent;
  recovery: LandingRecovery;
  /** Checkouts that could not be brought to the new base, with git's reason (left as they were). */
  notFollowed: Array<{ path: string; reason: string }>;
}

/**
 * Finishes or undoes the landing recorded in `intentFile`, if any, and clears the record. After
 * `finish` the task has landed (`intent.newBase` is in the base); after `undo` the caller lands it
 * again with `landMerge`.
 */
export async function resumeLanding(intentFile: string): Promise<ResumedLanding | null> {
  const intent = await readLandingIntent(intentFile);
  if (intent === null) return null;
  const state = await readRepoState(intent);
  const recovery = recoverLanding(intent, state);
  const notFollowed: ResumedLanding['notFollowed'] = [];
  if (recovery.action === 'finish') {
    for (const path of recovery.follow) {
      const reason = await follow(path, intent.oldBase, intent.newBase);
      if (reason !== null) notFollowed.push({ path, reason });
    }
  }
  if (recovery.removeScratch && intent.scratch !== null) await removeScratch(intent.repo, intent.scratch);
  await clearLandingIntent(intentFile);
  return { intent, recovery, notFollowed };
}

async function readRepoState(intent: LandingIntent): Promise<LandingRepoState> {
  const { repo, base, oldBase, newBase } = intent;
  const tip = await git(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${base}^{commit}`]);
  const baseTip = tip.exitCode === 0 ? tip.stdout.trim() : null;
  const newBaseInBase =
    baseTip !== null && (await git(repo, ['merge-base', '--is-ancestor', newBase, baseTip])).exitCode === 0;
  const checkouts: LandingRepoState['checkouts'] = [];
  for (const entry of await listWorktrees(repo)) {
    if (entry.branch !== `refs/heads/${base}` || !existsSync(entry.path)) continue;
    checkouts.push({ path: entry.path, indexAt: await indexAt(entry.path, oldBase, newBase) });
  }
  return {
    baseTip,
    newBaseInBase,
    scratchExists: intent.scratch !== null && existsSync(intent.scratch),
    checkouts,
  };
}
