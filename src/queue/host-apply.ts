import { mkdir, writeFile } from 'node:fs/promises';
import { waitCauseOf, waitingUntilOf } from '../loop/checkpoint.js';
import { dirname, relative } from 'node:path';
import type { EndingDeps } from '../loop/ending.js';
import { LOCAL_ENDINGS } from '../loop/endings.js';
import type { LoopEvent, TaskRunResult } from '../loop/events.js';
import { writeCheckpoint } from '../loop/write-checkpoint.js';
import type { OpenedSession } from '../memory/session.js';
import { writeFileAtomic } from '../store/atomic-write.js';
import type { PersistenceLoopData } from '../task/render.js';
import type { HostPrepared } from './host-prepare.js';
import { writeQueueRecord } from './host-prepare.js';
import type { ParsedProgress, ProgressDecision, WorkerRef } from './progress.js';
import type { WorkerEnding } from './run-ending.js';

/** The task file of a run the host follows: where it is and its text as last written. */
export interface HostTarget {
  taskId: string;
  file: string;
  lastText: string;
}

export interface ApplyDeps extends EndingDeps {
  session: OpenedSession;
  onEvent: ((event: LoopEvent) => void) | undefined;
}

/**
 * Writes what a progress message the host accepted (applyProgress) brings: each new history line
 * once (its log beside it), the memory files, then the checkpoint: the same order as the loop on
 * one machine, so a crash between them resumes as there (resume-plan.ts).
 */
export async function writeProgress(
  target: HostTarget,
  progress: ParsedProgress,
  decision: Extract<ProgressDecision, { kind: 'apply' | 'gap' }>,
  deps: ApplyDeps,
): Promise<HostTarget> {
  const { store } = deps.session;
  const paths = store.paths;
  for (const entry of decision.records) {
    const logFile = store.logFile(entry.record.iteration, entry.record.attempt);
    if (logFile !== null && entry.log !== undefined) {
      await mkdir(dirname(logFile), { recursive: true });
      await writeFile(logFile, entry.log);
    }
    const { logFile: _workerPath, ...rest } = entry.record;
    await store.appendHistory(logFile === null || entry.log === undefined ? rest : { ...rest, logFile });
    deps.onEvent?.({ type: 'iteration-end', taskId: target.taskId, record: entry.record });
  }
  if (paths !== null) {
    const { prd, progress: notes, context } = progress.memory;
    await Promise.all([
      prd === null ? null : writeFileAtomic(paths.prd, prd),
      notes === null ? null : writeFileAtomic(paths.progress, notes),
      context === null ? null : writeFileAtomic(paths.context, context),
    ]);
  }
  const text = await writeCheckpoint(
    target.file,
    target.lastText,
    { keys: { state: 'Approved', persistence_loop: progress.checkpoint as PersistenceLoopData } },
    deps,
  );
  await writeQueueRecord(deps.session, { ...decision.state, commit: progress.commit });
  deps.onEvent?.({
    type: 'checkpoint',
    taskId: target.taskId,
    iteration: progress.checkpoint.iteration,
    maxIterations: progress.checkpoint.max_iterations,
  });
  // A run waiting out a usage limit or an outage on its worker shows so here, as on one machine.
  const until = waitingUntilOf(progress.checkpoint);
  if (until !== null)
    deps.onEvent?.({ type: 'waiting', taskId: target.taskId, untilMs: until, why: waitCauseOf(progress.checkpoint) });
  return text === null ? target : { ...target, lastText: text };
}

/**
 * Ends the task's file as the worker's loop ended its copy, with the host's own history and session
 * folder in the report in place of the worker's.
 */
export async function writeEnding(
  target: HostTarget,
  ending: WorkerEnding,
  prepared: HostPrepared,
  commit: string | null,
  deps: ApplyDeps,
): Promise<TaskRunResult> {
  const history = await deps.session.store.loadHistory();
  const paths = deps.session.store.paths;
  const sessionDir = paths === null ? null : relative(deps.places.root, deps.session.runDir ?? paths.dir) || '.';
  const local = { history, sessionDir };
  switch (ending.kind) {
    case 'done':
      return LOCAL_ENDINGS.done(
        target,
        ending.loop,
        { ...ending.facts, ...local, landing: landingText(prepared, commit) },
        deps,
        ending.tickChecklist,
        ending.review,
      );
    case 'rejected':
      return LOCAL_ENDINGS.rejected(target, ending.loop, { ...ending.facts, ...local }, deps);
    case 'stopped':
      // The same ending as on one machine: it sets the status and follows a file moved away.
      return LOCAL_ENDINGS.stopped(target, ending.loop, ending.reason, ending.iterations, deps);
    case 'blocked':
      return LOCAL_ENDINGS.blocked(target, ending.loop, ending.question, deps);
  }
}

/** Where a run on workers left its work: the task's branch on the remote, at the last pushed commit. */
function landingText(prepared: HostPrepared, commit: string | null): string {
  const { remote, branch } = prepared.code;
  return commit === null
    ? `The work is on the branch \`${branch}\` of ${remote} (nothing was pushed).`
    : `The work is on the branch \`${branch}\` of ${remote}, at ${commit.slice(0, 12)}: merge it or open a pull request from there.`;
}

/** A worker named in a progress message, said once per change. */
export function workerChanged(before: WorkerRef | null, now: WorkerRef): boolean {
  return before === null || before.id !== now.id || before.pid !== now.pid;
}
