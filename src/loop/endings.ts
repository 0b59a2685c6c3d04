import { finishBlocked, finishDone, finishRejected, finishStopped } from './ending.js';

/**
 * The four ways a loop ends a task's file (ending.ts), as one replaceable set. A host's reports
 * (run-host.ts) name the set its runs end with: the vault's use them as they are; a `wiggum worker`
 * runs the loop against a private copy of the task and records what each ending was told, so that
 * the vault host, the only writer of the real file, can end it the same way (queue/run-ending.ts).
 */
export interface Endings {
  done: typeof finishDone;
  rejected: typeof finishRejected;
  stopped: typeof finishStopped;
  blocked: typeof finishBlocked;
}

export const LOCAL_ENDINGS: Endings = {
  done: finishDone,
  rejected: finishRejected,
  stopped: finishStopped,
  blocked: finishBlocked,
};
