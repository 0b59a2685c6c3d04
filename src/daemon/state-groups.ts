import { TASK_STATES } from '../task/states.js';
import type { TaskStateName } from '../task/states.js';
import { iterationCount } from '../task/iteration-count.js';
import type { IterationCount } from '../task/iteration-count.js';
import type { PictureTask } from './picture.js';

/** The tasks of one state, as the text views list them under one heading. */
export interface StateGroup {
  state: TaskStateName;
  tasks: PictureTask[];
}

/** Pure: the picture's tasks by state, in the table's order (people first); empty states left out. */
export function groupByState(tasks: readonly PictureTask[]): StateGroup[] {
  const groups = new Map<TaskStateName, PictureTask[]>();
  for (const task of tasks) {
    const group = groups.get(task.state);
    if (group === undefined) groups.set(task.state, [task]);
    else group.push(task);
  }
  return TASK_STATES.flatMap((state) => {
    const found = groups.get(state);
    return found === undefined ? [] : [{ state, tasks: found }];
  });
}

/**
 * Pure: the task's count as every view says it (the checkpoint's iterations finished), with the
 * iteration at work only while it runs; null when the picture does not know it.
 */
export function countOf(task: PictureTask): IterationCount | null {
  if (task.iterations === undefined) return null;
  const running = task.state === 'running' && task.run?.current !== undefined;
  return iterationCount(task.iterations, task.maxIterations, running);
}
