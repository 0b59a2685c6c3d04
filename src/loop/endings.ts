import { finishBlocked, finishDone, finishRejected, finishStopped } from './ending.js';
import type { EndingDeps } from './ending.js';
import type { SecretMask } from '../secret-mask.js';

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

/**
 * What an ending is told (the facts of a report, a question, the checkpoint) with the run's secrets
 * masked, before anything is cut, logged or returned: the result's reason reaches the status files,
 * the API and the notifiers.
 */
const masked = <T>(deps: EndingDeps, value: T): T => maskOf(deps).json(value);
const maskOf = (deps: EndingDeps): Pick<SecretMask, 'json'> => deps.mask ?? { json: (value) => value };

export const LOCAL_ENDINGS: Endings = {
  done: (target, loop, facts, deps, ...rest) =>
    finishDone(target, masked(deps, loop), masked(deps, facts), deps, ...rest),
  rejected: (target, loop, failure, deps) => finishRejected(target, masked(deps, loop), masked(deps, failure), deps),
  stopped: finishStopped,
  blocked: (target, loop, question, deps) => finishBlocked(target, masked(deps, loop), masked(deps, question), deps),
};
