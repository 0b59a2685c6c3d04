import { WiggumError } from '../errors.js';
import { BRANCH_PATTERN, COMMIT_PATTERN, REMOTE_PATTERN } from './code-place.js';

/**
 * What a worker knows before it pushes an iteration or sends its progress:
 * - `generation`: its own (generationOf, read when it took the job);
 * - `job`: the job as Redis has it now: null when it is gone (removed, or ended elsewhere), else
 *   its current generation and whether the lock still holds this worker's token;
 * - `branch`: the commit the remote branch is at now (null: no such branch) and the lease, the
 *   commit this worker last pushed or resumed from (null: the branch must not exist yet).
 */
export interface FenceFacts {
  generation: number;
  job: { generation: number; lockHeld: boolean } | null;
  branch: { remoteCommit: string | null; lease: string | null };
}

export type FenceReason = 'job-gone' | 'lock-lost' | 'superseded' | 'branch-moved';

export type FenceDecision = { kind: 'proceed' } | { kind: 'stop-agent-and-drop'; reason: FenceReason };

/**
 * The worker's half of fencing (the host's half is applyProgress ignoring a stale generation). BullMQ
 * delivers a run at least once: a worker whose lock lapsed (paused, cut off) may still be running
 * while another has taken the job over. Such a late worker must not push or send progress, and
 * stops its agent: its iteration is redone by the owner, so dropping it loses nothing. Each fact
 * alone is enough: the lock token says so first, a newer generation says so when the lock was
 * re-taken, and a remote branch that moved past the lease says so when both checks passed just
 * before another worker pushed (the push's own lease refuses it then: pushLeaseArgs).
 */
export function fenceDecision(facts: FenceFacts): FenceDecision {
  if (facts.job === null) return { kind: 'stop-agent-and-drop', reason: 'job-gone' };
  if (!facts.job.lockHeld) return { kind: 'stop-agent-and-drop', reason: 'lock-lost' };
  if (facts.job.generation > facts.generation) return { kind: 'stop-agent-and-drop', reason: 'superseded' };
  if (facts.branch.remoteCommit !== facts.branch.lease) return { kind: 'stop-agent-and-drop', reason: 'branch-moved' };
  return { kind: 'proceed' };
}

/** What a worker logs and tells the host when it drops its run, in a person's words. */
export const FENCE_REASON_TEXT: Record<FenceReason, string> = {
  'job-gone': 'the run is no longer queued (removed, or ended elsewhere)',
  'lock-lost': "this worker's lock on the run lapsed (it was paused or cut off longer than queue.lock_duration)",
  superseded: 'another worker took the run over after this one stalled',
  'branch-moved': "the task's branch on the remote moved past the commit this worker last pushed",
};

export interface PushLease {
  remote: string;
  branch: string;
  /** The commit to push (a full id: pushing `HEAD` would push whatever is checked out then). */
  commit: string;
  /** The commit the remote branch must still be at; null: the branch must not exist yet. */
  lease: string | null;
}

/**
 * The arguments of `git push` with a lease: the push succeeds only while the remote branch is still
 * at `lease` (`--force-with-lease=refs/heads/B:` with nothing after the colon: only while it does
 * not exist), so of two workers that both think they own the run, only the first push lands. The
 * lease names the expected commit explicitly: a bare `--force-with-lease` would compare against
 * the clone's remote-tracking ref, which a fetch moves. `--porcelain` gives a status per ref that
 * a program reads, never a message for people. Pure: the caller runs git.
 */
export function pushLeaseArgs(push: PushLease): string[] {
  if (!REMOTE_PATTERN.test(push.remote)) throw badPush(`"${push.remote}" is not a git remote URL or path`);
  if (!BRANCH_PATTERN.test(push.branch)) throw badPush(`"${push.branch}" is not a branch name git accepts`);
  if (!COMMIT_PATTERN.test(push.commit)) throw badPush(`"${push.commit}" is not a full commit id`);
  if (push.lease !== null && !COMMIT_PATTERN.test(push.lease))
    throw badPush(`the lease "${push.lease}" is not a full commit id`);
  const ref = `refs/heads/${push.branch}`;
  return ['push', '--porcelain', `--force-with-lease=${ref}:${push.lease ?? ''}`, push.remote, `${push.commit}:${ref}`];
}

export type PushOutcome = 'pushed' | 'up-to-date' | 'lease-refused' | 'rejected';

/**
 * What `git push --porcelain` said about the ref (its flag column): `=` already there, ` `, `+`
 * and `*` pushed, `!` refused: by the lease when the reason says "stale info" (git's fixed
 * porcelain wording for a lease that no longer holds), else for another reason (a hook, a
 * protected branch). Null: the ref is not in the output (git failed before pushing).
 */
export function pushOutcome(porcelain: string, branch: string): PushOutcome | null {
  const ref = `refs/heads/${branch}`;
  for (const line of porcelain.split('\n')) {
    // `<flag> TAB <from>:<to> TAB <summary>`
    const [flag = '', fromTo = '', summary = ''] = line.split('\t');
    if (!fromTo.endsWith(`:${ref}`)) continue;
    if (flag === '=') return 'up-to-date';
    if (flag === ' ' || flag === '+' || flag === '*') return 'pushed';
    if (flag === '!') return /stale info/.test(summary) ? 'lease-refused' : 'rejected';
  }
  return null;
}

function badPush(what: string): WiggumError {
  return new WiggumError(
    'E_GIT',
    `cannot push a task's iteration: ${what}; this is a bug in the job's data, report it`,
  );
}
