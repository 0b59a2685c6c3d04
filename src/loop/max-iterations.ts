import type { Logger } from '../log/logger.js';
import type { LoopState } from './decide.js';
import { plural } from '../plural.js';

/**
 * What the loop does when the user edits the task's own `max_iterations` while it runs. The task
 * file is read again before every iteration; the new bound takes effect there, so the edit is
 * neither reverted by the next checkpoint (which writes `persistence_loop.max_iterations`) nor
 * silently ignored. A `--max-iterations` flag given for the run wins over the file, and the log
 * says the edit was not applied.
 */
export interface MaxIterationsInput {
  /** The bound the loop uses now. */
  current: number;
  /** Iterations finished. */
  done: number;
  /** The file's `max_iterations` when last read (null: the key is absent). */
  fileBefore: number | null;
  /** The file's `max_iterations` now. */
  fileNow: number | null;
  /** `--max-iterations` of this run, if given. */
  override: number | undefined;
  /** `persistence_loop.max_iterations` of the config: the bound of a task without the key. */
  configDefault: number;
}

export type MaxIterationsChange =
  | { kind: 'same' }
  | { kind: 'applied'; maxIterations: number; message: string }
  | { kind: 'not-applied'; message: string };

export function maxIterationsChange(input: MaxIterationsInput): MaxIterationsChange {
  if (input.fileNow === input.fileBefore) return { kind: 'same' };
  const edit = `max_iterations in the task file changed from ${input.fileBefore ?? 'unset'} to ${input.fileNow ?? 'unset'}`;
  if (input.override !== undefined) {
    return {
      kind: 'not-applied',
      message: `${edit}, but --max-iterations ${input.override} was given for this run: not applied, the run keeps ${input.override}`,
    };
  }
  const next = input.fileNow ?? input.configDefault;
  if (next === input.current) return { kind: 'same' };
  const ends =
    next <= input.done
      ? `; ${input.done} ${input.done === 1 ? 'iteration has' : 'iterations have'} finished, so the task ends now`
      : '';
  return {
    kind: 'applied',
    maxIterations: next,
    message: `${edit}: it takes effect now, the loop runs at most ${plural(next, 'iteration')}${ends}`,
  };
}

/**
 * The loop state with the user's edit of max_iterations applied, and the edit said in the log
 * whether applied or not; the very same state when nothing changed.
 */
export function withMaxIterationsEdit(
  state: LoopState,
  edit: Omit<MaxIterationsInput, 'current' | 'done'>,
  log: Logger,
): LoopState {
  const change = maxIterationsChange({ ...edit, current: state.maxIterations, done: state.iteration });
  if (change.kind === 'same') return state;
  log.warn(
    {
      event: 'loop.max-iterations-changed',
      iterations: state.iteration,
      maxIterations: change.kind === 'applied' ? change.maxIterations : state.maxIterations,
    },
    change.message,
  );
  return change.kind === 'applied' ? { ...state, maxIterations: change.maxIterations } : state;
}
