import type { WiggumConfig } from '../config/config.js';
import { readHistoryFile } from '../memory/history.js';
import { sessionPaths } from '../memory/paths.js';
import type { Task } from '../task/parse.js';
import type { PersistenceLoopData } from '../task/render.js';

/**
 * The checkpoint of a task sent back for another run: the same session (so the agent resumes from
 * its memory) with fresh budgets, since a task rejected for max_iterations or time would otherwise
 * be rejected again at once.
 */
export function sentBackLoop(task: Task, config: WiggumConfig, historyBase: number): PersistenceLoopData {
  const previous = task.frontmatter.persistence_loop;
  return {
    status: 'queued',
    ...(previous?.session === undefined ? {} : { session: previous.session }),
    ...(previous?.started === undefined ? {} : { started: previous.started }),
    iteration: 0,
    max_iterations: task.frontmatter.max_iterations ?? config.loop.maxIterations,
    checkpoint: {
      completed_steps: previous?.checkpoint?.completed_steps ?? [],
      current_step: previous?.checkpoint?.current_step ?? null,
      // The new run numbers its iterations from 1 again: the earlier run's history lines are not its own.
      ...(historyBase > 0 ? { state_data: { history_base: historyBase } } : {}),
    },
  };
}

/** How many iterations the task's session has recorded (0 without a session, or if it cannot be read). */
export async function historyLength(sessionsRoot: string, taskId: string): Promise<number> {
  return (await readHistoryFile(sessionPaths(sessionsRoot, taskId).history).catch(() => [])).length;
}
