import type { WaitCause } from './decide.js';
import type { Pause, PauseBoard } from './run-host.js';

/**
 * The pause board of one process (run-host.ts PauseBoard): what its tasks know about their agents'
 * accounts, shared because both belong to an agent's account or service, not to one task. Keyed by
 * account (a harness's `account:`, else its name), the same key a queue's pauses use in Redis.
 *
 * A usage limit: when one task's agent says "usage limit, resets at T", every task on the same
 * account would hit the same wall and burn its own attempts finding out. The task pauses its
 * account until T; the others see the pause before their next run and wait with it.
 *
 * An outage: when the agent's service does not answer (network, overload), one task's retries
 * cannot tell it from bad luck, but several tasks failing together can. Each task notes its
 * failures here; a task that sees another failing on the same account waits for the outage
 * instead of spending its retries, and the first answer its agent gives ends the outage for all.
 * One instance is shared by the tasks of a process (the daemon passes its own to every task).
 */
export class AccountPauses implements PauseBoard {
  private readonly pauses = new Map<string, Pause>();
  /** Per account, the tasks whose last run failed with a network or overload error. */
  private readonly failing = new Map<string, Set<string>>();

  /** `account` is out of use until `untilMs` (epoch ms); a later pause wins over an earlier one. */
  pause(account: string, untilMs: number, why: WaitCause = 'usage-limit'): void {
    const current = this.pauses.get(account);
    if (current !== undefined && current.untilMs >= untilMs) return;
    // A usage limit outranks an outage in what the pause is said to be: it is the agent's own word.
    this.pauses.set(account, { untilMs, why: current?.why === 'usage-limit' ? 'usage-limit' : why });
  }

  /** Until when `account` is paused, or null when it may run now. */
  pausedUntil(account: string, nowMs: number): number | null {
    return this.pauseOf(account, nowMs)?.untilMs ?? null;
  }

  /** The pause of `account` in force at `nowMs`, or null. */
  pauseOf(account: string, nowMs: number): Pause | null {
    const pause = this.pauses.get(account);
    return pause === undefined || pause.untilMs <= nowMs ? null : { ...pause };
  }

  /** A run of `taskId` on `account` failed with a network or overload error. */
  failed(account: string, taskId: string): void {
    const tasks = this.failing.get(account) ?? new Set<string>();
    tasks.add(taskId);
    this.failing.set(account, tasks);
  }

  /** `account` answered a run (whatever the answer): its outage, if any, is over. */
  answered(account: string): void {
    this.failing.delete(account);
    if (this.pauses.get(account)?.why === 'outage') this.pauses.delete(account);
  }

  /** `taskId` no longer runs: its failures say nothing about the account any more. */
  forget(account: string, taskId: string): void {
    this.failing.get(account)?.delete(taskId);
  }

  /** Whether a task other than `taskId` is failing on `account` with network or overload errors. */
  othersFailing(account: string, taskId: string): boolean {
    const tasks = this.failing.get(account);
    if (tasks === undefined) return false;
    return tasks.size > (tasks.has(taskId) ? 1 : 0);
  }
}
