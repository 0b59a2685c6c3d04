import type { RunningDaemon } from '../daemon/surface.js';
import type { LiveLine } from '../log/live-line.js';
import { countText, iterationCount } from '../task/iteration-count.js';

interface Running {
  /** Iterations finished, as the checkpoint says (the one count every view shows). */
  done: number;
  /** Whether an iteration is at work now (between its start and its end). */
  atWork: boolean;
  maxIterations: number;
  step: string | null;
  sinceMs: number;
  waiting: string | null;
}

const REFRESH_MS = 1_000;

/**
 * Keeps the terminal's status line showing every running task: `▶ bulk-7 2 of 10 done, the 3rd
 * running US-003 12s` (the one count, src/task/iteration-count.ts), or what
 * it waits for. Fed by the daemon's events; returns its release.
 */
export function showRunningTasks(daemon: RunningDaemon, line: LiveLine, now: () => number = Date.now): () => void {
  const running = new Map<string, Running>();
  const render = (): void => {
    const parts = [...running].map(([id, task]) => {
      const seconds = Math.round((now() - task.sinceMs) / 1000);
      const what = task.waiting ?? `${task.step ?? 'no open story'} ${seconds}s`;
      return `${id} ${countText(iterationCount(task.done, task.maxIterations, task.atWork))} ${what}`;
    });
    line.set(parts.length === 0 ? '' : `▶ ${parts.join('  ·  ')}`);
  };
  const releases = [
    daemon.events.on('loop', (event) => {
      const known = event.taskId === null ? undefined : running.get(event.taskId);
      if (event.type === 'iteration')
        running.set(event.taskId, {
          done: known?.done ?? event.iteration - 1,
          atWork: true,
          maxIterations: event.maxIterations,
          step: event.step,
          sinceMs: event.startedAtMs,
          waiting: null,
        });
      if (event.type === 'iteration-end' && known !== undefined) known.atWork = false;
      // The checkpoint's count, as status says it: never a count of its own.
      if (event.type === 'checkpoint' && known !== undefined) known.done = event.iteration;
      if (event.type === 'waiting') {
        const task = known;
        if (task !== undefined)
          task.waiting =
            event.why === 'hold'
              ? 'held by STOP'
              : event.why === 'retry'
                ? 'waiting to retry'
                : event.why === 'outage'
                  ? `waiting on harness ${event.harness ?? ''} (outage)`
                  : event.why === 'landing'
                    ? `waiting to land: ${event.reason ?? 'the base is not ready'}`
                    : 'waiting for the usage limit';
      }
      if (event.type === 'ended' && event.taskId !== null) running.delete(event.taskId);
      render();
    }),
    daemon.events.on('settled', ({ taskId }) => {
      running.delete(taskId);
      render();
    }),
  ];
  // A real interval on purpose: it repaints a terminal line for a person's eyes (the elapsed time
  // moves on between events); nothing is decided on it.
  const timer = setInterval(render, REFRESH_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    for (const release of releases) release();
    line.clear();
  };
}
