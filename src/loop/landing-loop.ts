import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { WiggumConfig } from '../config/config.js';
import { WiggumError, isWiggumError } from '../errors.js';
import { afterLanding, landingStory, landingWaitMs, uncommittedStory } from '../git/land-decide.js';
import { uncommittedFiles } from '../git/worktree.js';
import type { VerifyResult } from '../git/land-merge.js';
import { resumeLanding } from '../git/land-recover.js';
import type { Logger } from '../log/logger.js';
import type { MemoryStore } from '../memory/store.js';
import type { Clock } from '../time/clock.js';
import type { LoopEvent } from './events.js';
import { landOnce, landingBase, landingTarget, readLandingAttempts, writeLandingAttempts } from './land-task.js';
import type { PreparedTask, PreparedWorktree } from './prepare.js';
import { retryDelayMs } from './retry-policy.js';
import { sleepCounted } from './waits.js';
import type { StopReason } from './outcome.js';

/** How a complete task's landing ended, for the loop to act on. */
export type LandingEnd =
  /** Landed (or kept, or the pull request opened): Done/, with `summary` in the Done summary. */
  | { kind: 'landed'; summary: string }
  /** A conflict or a failing check on the merged result: back to the loop, the story in its context. */
  | { kind: 'back' }
  | { kind: 'reject'; error: WiggumError }
  | { kind: 'stop'; reason: StopReason };

export interface LandingDeps {
  taskId: string;
  title: string;
  prepared: PreparedTask & { worktree: PreparedWorktree };
  config: WiggumConfig;
  clock: Clock;
  random: () => number;
  log: Logger;
  store: MemoryStore;
  files: { intent: string; attempts: string };
  signal: AbortSignal;
  stopReason: () => StopReason | null;
  onEvent?: ((event: LoopEvent) => void) | undefined;
  verify?: (dir: string) => Promise<VerifyResult>;
}

/**
 * Lands a complete task's branch the way its `land:` says, before it moves to Done/. A landing a
 * crash interrupted is finished or undone first (its intent file: land-intent.ts). A landing that
 * must wait (the user's copy of the base has local changes) waits and says why; a transient push or
 * pull-request failure is tried again with the retry policy's backoff; a conflict goes back to the
 * loop up to `git.land_attempts`. Nothing here ever calls a task done that did not land.
 */
export async function landCompleteTask(deps: LandingDeps): Promise<LandingEnd> {
  const { prepared, log, files } = deps;
  const worktree = prepared.worktree;
  await mkdir(dirname(files.intent), { recursive: true });
  const resumed = await resumeLanding(files.intent);
  if (resumed !== null) {
    const { intent, notFollowed } = resumed;
    // A checkout of the base that could not follow (a file of the user's in the way) was left as
    // it was: its HEAD is at the new base, its index and files at the old one, so it shows the
    // landing undone as local changes. Said here and in the summary, with the command that ends it.
    log[notFollowed.length === 0 ? 'info' : 'warn'](
      {
        event: 'land.recovered',
        action: resumed.recovery.action,
        reason: resumed.recovery.reason,
        ...(notFollowed.length === 0 ? {} : { notFollowed }),
      },
      `a landing interrupted by a restart: ${resumed.recovery.reason}` +
        notFollowed.map(({ path, reason }) => `; ${path} could not follow (${reason})`).join(''),
    );
    if (resumed.recovery.action === 'finish') {
      await writeLandingAttempts(files.attempts, 0);
      const stale = notFollowed.map(
        ({ path, reason }) =>
          `\n\nThe checkout of \`${intent.base}\` at ${path} could not follow (${reason}): its files still show ` +
          `${intent.oldBase.slice(0, 12)}. Move the files git names out of the way, then run ` +
          `\`git -C ${path} read-tree -u -m ${intent.oldBase} ${intent.newBase}\`.`,
      );
      return {
        kind: 'landed',
        summary:
          `Branch \`${intent.branch}\` was merged into \`${intent.base}\` (${intent.how === 'ff' ? 'fast-forward' : `merge commit ${intent.newBase.slice(0, 12)}`}); ` +
          `the landing was finished after a restart interrupted it. \`${intent.base}\` was at ${intent.oldBase.slice(0, 12)}.` +
          stale.join(''),
      };
    }
  }

  let base: string;
  try {
    base = await landingBase(worktree, prepared.base);
  } catch (error) {
    if (isWiggumError(error)) return { kind: 'reject', error };
    throw error;
  }
  const target = landingTarget(prepared.land, worktree, prepared.workdir, base);
  const maxAttempts = deps.config.git.landAttempts;
  const attempts = await readLandingAttempts(files.attempts);
  let waits = 0;
  let failures = 0;
  let lastWait = '';
  log.info(
    { event: 'land.started', branch: worktree.branch, base, land: target.mode },
    target.mode === 'branch'
      ? `the task is complete: its branch ${worktree.branch} is kept`
      : `the task is complete: landing ${worktree.branch} into ${base} (${target.mode})`,
  );
  if (target.mode !== 'branch') {
    // Work the agent left uncommitted would not land, yet the task would say Done.
    const uncommitted = await uncommittedFiles(worktree.path);
    if (uncommitted.length > 0) {
      const story = uncommittedStory(uncommitted, worktree.branch);
      const reason = `${uncommitted.length} file${uncommitted.length === 1 ? ' is' : 's are'} not committed on ${worktree.branch} (${uncommitted.slice(0, 5).join(', ')}${uncommitted.length > 5 ? ', …' : ''})`;
      return sendBack(deps, attempts, maxAttempts, story, reason, { base, files: uncommitted });
    }
  }
  for (;;) {
    const stop = deps.stopReason();
    if (stop !== null) return { kind: 'stop', reason: stop };
    let step;
    try {
      step = await landOnce(target, {
        config: deps.config,
        title: deps.title,
        intentFile: files.intent,
        ...(deps.verify === undefined ? {} : { verify: deps.verify }),
      });
    } catch (error) {
      if (isWiggumError(error)) return { kind: 'reject', error };
      throw error;
    }
    if (step.outcome.kind === 'kept') return { kind: 'landed', summary: step.summary };
    const outcome = step.outcome;
    // A check stopped by a stop request did not fail: the landing runs again when the task resumes.
    const stopped = deps.stopReason();
    if (stopped !== null && outcome.kind === 'check-failed') return { kind: 'stop', reason: stopped };
    const next = afterLanding(outcome, attempts + 1, maxAttempts);
    switch (next.next) {
      case 'done':
        await writeLandingAttempts(files.attempts, 0);
        log.info(
          {
            event: 'land.landed',
            branch: worktree.branch,
            base,
            ...(outcome.kind === 'landed' ? { how: outcome.how, newBase: outcome.newBase } : {}),
            ...(outcome.kind === 'opened' ? { url: outcome.url ?? undefined } : {}),
          },
          `${worktree.branch}: ${next.reason}`,
        );
        return { kind: 'landed', summary: step.summary };
      case 'send-back': {
        if (outcome.kind !== 'conflict' && outcome.kind !== 'check-failed') throw new Error('unreachable');
        const story = landingStory(outcome, worktree.branch, base);
        return sendBack(
          deps,
          attempts,
          maxAttempts,
          story,
          `landing ${worktree.branch} into ${base}: ${next.reason}`,
          outcome.kind === 'conflict' ? { base, files: outcome.files, baseCommit: outcome.baseCommit } : { base },
        );
      }
      case 'reject':
        await writeLandingAttempts(files.attempts, 0);
        log.error({ event: 'land.failed', branch: worktree.branch, base, reason: next.reason }, next.reason);
        return {
          kind: 'reject',
          error: new WiggumError(
            outcome.kind === 'conflict' || outcome.kind === 'check-failed' ? 'E_LAND_CONFLICT' : 'E_LAND_FAILED',
            `landing ${worktree.branch} into ${base} (land: ${target.mode}): ${next.reason}`,
            { details: outcome.kind === 'conflict' ? { files: outcome.files, baseCommit: outcome.baseCommit } : {} },
          ),
        };
      case 'wait': {
        waits += 1;
        const waitMs = landingWaitMs(waits);
        if (next.reason !== lastWait)
          log.warn({ event: 'land.waiting', branch: worktree.branch, base, reason: next.reason }, next.reason);
        lastWait = next.reason;
        await pause(deps, waitMs, 'landing', next.reason);
        break;
      }
      case 'retry': {
        failures += 1;
        const policy = deps.config.loop.retry;
        if (failures > policy.maxAttempts) {
          const reason = `${next.reason}; still failing after ${failures - 1} retries`;
          log.error({ event: 'land.failed', branch: worktree.branch, base, reason }, reason);
          return {
            kind: 'reject',
            error: new WiggumError('E_LAND_FAILED', `landing ${worktree.branch} (land: ${target.mode}): ${reason}`),
          };
        }
        const delayMs = retryDelayMs(failures, policy, deps.random);
        log.warn(
          { event: 'land.retrying', branch: worktree.branch, attempt: failures, delayMs, reason: next.reason },
          `landing ${worktree.branch} failed (${next.reason}); trying again in ${Math.round(delayMs)} ms`,
        );
        await pause(deps, delayMs, 'retry', next.reason);
        break;
      }
    }
  }
}

/**
 * Back to the loop with `story` as context, counted as a landing attempt; past `git.land_attempts`
 * the task is rejected instead, with `reason`.
 */
async function sendBack(
  deps: LandingDeps,
  attempts: number,
  maxAttempts: number,
  story: { title: string; context: string },
  reason: string,
  details: Record<string, unknown>,
): Promise<LandingEnd> {
  const branch = deps.prepared.worktree.branch;
  const attempt = attempts + 1;
  if (attempt >= maxAttempts) {
    await writeLandingAttempts(deps.files.attempts, 0);
    const why = `${reason}, still after ${maxAttempts} landing attempt${maxAttempts === 1 ? '' : 's'}`;
    deps.log.error({ event: 'land.failed', branch, reason: why }, why);
    return { kind: 'reject', error: new WiggumError('E_LAND_CONFLICT', why, { details }) };
  }
  await writeLandingAttempts(deps.files.attempts, attempt);
  await deps.store.addContext(`#### ${story.title}\n\n${story.context}`);
  deps.log.warn(
    { event: 'land.sent-back', branch, attempt, attempts: maxAttempts, ...details },
    `${reason}: back to the loop (landing attempt ${attempt} of ${maxAttempts})`,
  );
  return { kind: 'back' };
}

async function pause(deps: LandingDeps, waitMs: number, why: 'landing' | 'retry', reason: string): Promise<void> {
  deps.onEvent?.({
    type: 'waiting',
    taskId: deps.taskId,
    untilMs: deps.clock.now() + waitMs,
    why,
    reason,
  });
  await sleepCounted(deps.clock, waitMs, deps.signal);
}
