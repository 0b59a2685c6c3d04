/**
 * Usage limits belong to an agent's account, not to one task: when one task's agent says "usage
 * limit, resets at T", every task on the same harness would hit the same wall and burn its own
 * attempts finding out. A task that hits the limit pauses its harness until T; the others see the
 * pause before their next run and wait with it. One instance is shared by the tasks of a process
 * (the daemon passes its own to every task).
 */
export class HarnessPauses {
  private readonly until = new Map<string, number>();

  /** `harness` is out of use until `untilMs` (epoch ms); a later pause wins over an earlier one. */
  pause(harness: string, untilMs: number): void {
    this.until.set(harness, Math.max(untilMs, this.until.get(harness) ?? 0));
  }

  /** Until when `harness` is paused, or null when it may run now. */
  pausedUntil(harness: string, nowMs: number): number | null {
    const until = this.until.get(harness);
    return until === undefined || until <= nowMs ? null : until;
  }
}
