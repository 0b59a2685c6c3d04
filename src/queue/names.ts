/**
 * Where the vault host and the workers meet in Redis: one BullMQ queue of task runs, and a few plain
 * keys for what BullMQ has no word for (a stop asked of a running task, the vault's STOP file, how
 * far the host has written a task's history). Every key starts with `wiggum:`; BullMQ's own start
 * with `bull:`.
 */
export const QUEUE_NAME = 'wiggum-runs';
/** BullMQ's key prefix (its default): the job hash and its lock are read directly for fencing. */
export const BULL_PREFIX = 'bull';

/** Set by the host when a task's run must stop (its value: the StopReason, or `kill`). */
export const stopKey = (taskId: string): string => `wiggum:stop:${taskId}`;
/** Set by the host while the vault's STOP file exists: runs hold before their next iteration. */
export const HOLD_KEY = 'wiggum:hold';
/** The seq of the newest history line of a task the host has written (progress.ts pendingRecords). */
export const ackKey = (taskId: string): string => `wiggum:ack:${taskId}`;
/** The code (`E_…`) of the WiggumError a worker's run of a job failed with: BullMQ keeps a failure's message only. */
export const failureKey = (jobId: string): string => `wiggum:failure:${jobId}`;
/** A usage limit an account hit: every worker holds that account's runs until the key expires. */
export const accountPauseKey = (account: string): string => `wiggum:account-pause:${account}`;

/** BullMQ's hash of a job, and its lock (the token of the worker that holds it). */
export const jobKey = (jobId: string): string => `${BULL_PREFIX}:${QUEUE_NAME}:${jobId}`;
export const jobLockKey = (jobId: string): string => `${jobKey(jobId)}:lock`;

/** How long the host's stop and hold keys live when nobody removes them (a host that died). */
export const SIGNAL_TTL_MS = 24 * 60 * 60 * 1000;

/** How often a worker says it is alive (its key in Redis lives three times as long). */
export const HEARTBEAT_MS = 2_000;
