/** Per job, the run waiting for its next look at it: woken early by the queue's events. */
export class Wakers {
  private readonly waiting = new Map<string, () => void>();

  wake(jobId: string): void {
    const wake = this.waiting.get(jobId);
    this.waiting.delete(jobId);
    wake?.();
  }

  /** Resolves at `jobId`'s next event, or never; `cancel` forgets it. */
  next(jobId: string): { woken: Promise<void>; cancel: () => void } {
    let cancel = (): void => undefined;
    const woken = new Promise<void>((resolve) => {
      this.waiting.set(jobId, resolve);
      cancel = () => {
        if (this.waiting.get(jobId) === resolve) this.waiting.delete(jobId);
      };
    });
    return { woken, cancel };
  }
}
