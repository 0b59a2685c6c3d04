import { isoSeconds } from '../time/clock.js';
import type { NextAction } from './decide.js';
import type { IterationRun } from './iteration-context.js';
import type { LoopRun } from './loop-run.js';
import { isOutageCode } from './retry-policy.js';
import { holdWhile, sleepCounted } from './waits.js';

// The waits of a run between its iterations: its account's pause, the host's hold, a backoff.

/**
 * Tells the other tasks on this account what its run came to: a network or overload failure
 * counts towards an outage; any other answer (a stop aside) ends one.
 */
export function noteAnswer(run: LoopRun, outcome: IterationRun['outcome']): void {
  if (outcome.kind === 'transient' && isOutageCode(outcome.code)) run.pauses.failed(run.account, run.taskId);
  else if (outcome.kind !== 'stopped' && outcome.kind !== 'transient') run.pauses.answered(run.account);
}

/**
 * Waits while the task's account is paused for a usage limit or an outage (this task's or
 * another's), without using an attempt; returns whether it waited.
 */
export async function waitForAccountPause(run: LoopRun): Promise<boolean> {
  const harness = run.prepared.harness.name;
  const now = run.deps.clock.now();
  const pause = run.pauses.pauseOf(run.account, now);
  if (pause === null) return false;
  const until = pause.untilMs;
  run.log.info(
    { event: 'harness.paused', harness, until: isoSeconds(until), why: pause.why },
    pause.why === 'outage'
      ? `harness ${harness} is in an outage, probed again at ${isoSeconds(until)}: waiting`
      : `harness ${harness} is at its usage limit until ${isoSeconds(until)}: waiting`,
  );
  await run.checkpoints.write('waiting', undefined, pause);
  run.event({ type: 'waiting', taskId: run.taskId, untilMs: until, why: pause.why, harness });
  await sleepCounted(run.deps.clock, until - now, run.request.signal);
  return true;
}

/** Holds while the host holds every run (the vault's STOP, the queue's hold); returns whether it held. */
export function holdWhileHeld(run: LoopRun): Promise<boolean> {
  return holdWhile(
    () => run.deps.host.signals.held(),
    run.deps.clock,
    run.request.signal,
    () => {
      run.log.info({ event: 'loop.holding' }, 'the vault STOP file exists: holding before the next iteration');
      run.event({ type: 'waiting', taskId: run.taskId, untilMs: Number.POSITIVE_INFINITY, why: 'hold' });
    },
  );
}

/** Sleeps a retry's backoff or a wait's pause; backoff counts towards the total timeout, a pause does not. */
export async function waitOut(run: LoopRun, action: Extract<NextAction, { kind: 'retry' | 'wait' }>): Promise<void> {
  const harness = run.prepared.harness.name;
  const now = run.deps.clock.now();
  // A backoff is a duration (exactly the policy's delay); a usage limit ends at a time.
  const waitMs = action.kind === 'retry' ? action.delayMs : Math.max(0, action.untilMs - now);
  run.event({
    type: 'waiting',
    taskId: run.taskId,
    untilMs: now + waitMs,
    why: action.kind === 'retry' ? 'retry' : action.why,
    harness,
  });
  if (action.kind === 'wait' && action.why === 'outage') {
    run.log.warn(
      {
        event: 'harness.outage',
        harness,
        until: isoSeconds(action.untilMs),
        since: run.state.waitingSinceMs === null ? undefined : isoSeconds(run.state.waitingSinceMs),
      },
      `harness ${harness} does not answer (an outage): it is paused, probed again at ${isoSeconds(action.untilMs)}`,
    );
  }
  const waited = await sleepCounted(run.deps.clock, waitMs, run.request.signal);
  // Time passed: anyone may have committed meanwhile, so the next iteration looks again.
  run.gitState = null;
  if (action.kind === 'retry') run.state = { ...run.state, activeMs: run.state.activeMs + waited };
}
