import type { IterationRecord } from '../memory/history.js';
import { runMask } from './request.js';
import { addRun } from '../memory/spent.js';
import { checkpointData } from './checkpoint.js';
import { decide, describeNextAction } from './decide.js';
import type { NextAction } from './decide.js';
import type { IterationRun } from './iteration-context.js';
import type { LoopRun } from './loop-run.js';
import { noteAnswer } from './run-waits.js';

/** An iteration decided and recorded: its history line, and that line's write. */
export interface Recorded {
  action: NextAction;
  record: IterationRecord;
  historyKept: Promise<void>;
}

/** Decides what follows the iteration, records it in the history and reports it to the host. */
export async function recordIteration(run: LoopRun, ran: IterationRun): Promise<Recorded> {
  const decision = decide(
    ran.outcome,
    run.state,
    run.prepared.loop,
    run.deps.clock.now(),
    run.deps.random,
    run.pauses.othersFailing(run.account, run.taskId),
  );
  noteAnswer(run, ran.outcome);
  // Asking uses neither an iteration nor the budgets: the run that asked is in the history only.
  run.state =
    decision.action.kind === 'block'
      ? decision.state
      : {
          ...decision.state,
          activeMs: decision.state.activeMs + ran.record.durationMs,
          spent: addRun(decision.state.spent, ran.record),
        };
  // Masked as it is made: history.jsonl, the checkpoint's last error, the reports and the
  // iteration events all read this record.
  const entry: IterationRecord = runMask(run.deps).json({
    ...ran.record,
    ...(run.answer === null ? {} : { answer: run.answer }),
    action: decision.action.kind,
    nextState: describeNextAction(decision.action, run.review),
  });
  run.answer = null;
  run.history.push(entry);
  // A record that cannot be kept (the disk full, the folder unwritable) ends this run before
  // the checkpoint counts the iteration: the task resumes from its last checkpoint and runs the
  // iteration again, so history and checkpoint never disagree. When a checkpoint follows, the
  // line's fsync runs beside the checkpoint's, whose rename waits for it (one disk wait less
  // per iteration); otherwise the line is durable before anything else happens.
  await run.checkpoints.durable();
  const historyKept = run.prepared.session.store.appendHistory(entry);
  const action = decision.action;
  if (checkpointFollows(run, action)) historyKept.catch(() => undefined);
  else await historyKept;
  logIteration(run, entry);
  run.event({ type: 'iteration-end', taskId: run.taskId, record: entry });
  // A worker sends each iteration to the vault host before anything else happens (queue/worker-run.ts).
  const waiting = action.kind === 'wait' ? action : undefined;
  await run.deps.host.reports.iterationRecorded?.({
    record: entry,
    checkpoint: checkpointData(
      run.checkpointKeys(waiting === undefined ? 'running' : 'waiting', entry, undefined, waiting),
    ),
  });
  return { action, record: entry, historyKept };
}

/** Whether a checkpoint follows the history line at once (a retry, a wait, every checkpoint_interval). */
export function checkpointFollows(run: LoopRun, action: NextAction): boolean {
  return (
    action.kind === 'retry' ||
    action.kind === 'wait' ||
    (action.kind === 'continue' && run.state.iteration % run.deps.config.loop.checkpointInterval === 0)
  );
}

function logIteration(run: LoopRun, entry: IterationRecord): void {
  run.log.info(
    {
      event: 'iteration.ended',
      iteration: entry.iteration,
      attempt: entry.attempt,
      exitCode: entry.exitCode,
      signal: entry.signal,
      outcome: entry.outcome,
      promise: entry.completionFound,
      stories: `${entry.storiesPassing}/${entry.storiesTotal}`,
      filesChanged: entry.git?.filesChanged,
      durationMs: entry.durationMs,
      action: entry.action,
      next: entry.nextState,
    },
    `iteration ${entry.iteration}${entry.attempt > 0 ? ` (retry ${entry.attempt})` : ''}: ${entry.outcome} → ${entry.nextState}`,
  );
}
