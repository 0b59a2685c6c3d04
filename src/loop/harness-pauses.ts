import type { WaitCause } from './decide.js';

interface Pause {
  untilMs: number;
  why: WaitCause;
}

/**
 * What the tasks of one process know about their harnesses, shared because both belong to an
 * agent's account or service, not to one task.
 *
 * A usage limit: when one task's agent says "usage limit, resets at T", every task on the same
 * harness would hit the same wall and burn its own attempts finding out. The task pauses its
 * harness until T; the others see the pause before their next run and wait with it.
 *
 * An outage: when the agent's service does not answer (network, overload), one task's retries
 * cannot tell it from bad luck, but several tasks failing together can. Each task notes its
 * failures here; a task that sees another failing on the same harness waits for the outage
 * instead of spending its retries, and the first answer the harness gives ends the outage for all.
 * One instance is shared by the tasks of a process (the daemon passes its own to every task).
 */
export class HarnessPauses {
  private readonly pauses = new Map<string, Pause>();
  /** Per harness, the tasks whose last run failed with a network or overload error. */
  private readonly failing = new Map<string, Set<string>>();

  /** `harness` is out of use until `untilMs` (epoch ms); a later pause wins over an earlier one. */
  pause(harness: string, untilMs: number, why: WaitCause = 'usage-limit'): void {
    const current = this.pauses.get(harness);
    if (current !== undefined && current.untilMs >= untilMs) return;
    // A usage limit outranks an outage in what the pause is said to be: it is the agent's own word.
    this.pauses.set(harness, { untilMs, why: current?.why === 'usage-limit' ? 'usage-limit' : why });
  }

  /** Until when `harness` is paused, or null when it may run now. */
  pausedUntil(harness: string, nowMs: number): number | null {
    return this.pauseOf(harness, nowMs)?.untilMs ?? null;
  }

  /** The pause of `harness` in force at `nowMs`, or null. */
  pauseOf(harness: string, nowMs: number): Pause | null {
    const pause = this.pauses.get(harness);
    return pause === undefined || pause.untilMs <= nowMs ? null : { ...pause };
  }

  /** A run of `taskId` on `harness` failed with a network or overload error. */
  failed(harness: string, taskId: string): void {
    const tasks = this.failing.get(harness) ?? new Set<string>();
    tasks.add(taskId);
    this.failing.set(harness, tasks);
  }

  /** `harness` answered a run (whatever the answer): its outage, if any, is over. */
  answered(harness: string): void {
    this.failing.delete(harness);
    if (this.pauses.get(harness)?.why === 'outage') this.pauses.delete(harness);
  }

  /** `taskId` no longer runs: its failures say nothing about the harness any more. */
  forget(harness: string, taskId: string): void {
    this.failing.get(harness)?.delete(taskId);
  }

  /** Whether a task other than `taskId` is failing on `harness` with network or overload errors. */
  othersFailing(harness: string, taskId: string): boolean {
    const tasks = this.failing.get(harness);
    if (tasks === undefined) return false;
    return tasks.size > (tasks.has(taskId) ? 1 : 0);
  }
}
