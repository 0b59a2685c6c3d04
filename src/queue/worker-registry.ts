import type { Redis } from 'ioredis';
import { z } from 'zod';
import { WiggumError } from '../errors.js';

/**
 * What a `wiggum worker` says of itself in Redis, for `status` and the Dashboard on the vault host:
 * who it is, what it may take and which tasks it runs now. Written whole at every heartbeat.
 */
export interface WorkerInfo {
  /** `workerId(host, pid, startedAtMs)`. */
  id: string;
  /** The machine's host name, as the worker reads it. */
  host: string;
  pid: number;
  /** How many task runs it takes at once (`--concurrency`). */
  concurrency: number;
  /** The harnesses it runs (`--harnesses`); null: every harness its config names. */
  harnesses: string[] | null;
  startedAtMs: number;
  /** The ids of the tasks it runs now. */
  running: string[];
  /** When it published this, by its own clock. */
  seenAtMs: number;
}

/** Every worker's entry is the key `wiggum:worker:<id>`, so one SCAN finds them all. */
export const WORKER_KEY_PREFIX = 'wiggum:worker:';

/** How many keys a SCAN step looks at and an MGET reads at once: bounded replies however many workers. */
const SCAN_COUNT = 200;
const MGET_AT_ONCE = 500;

/**
 * Unknown keys are dropped, not refused: a newer worker may say more than this wiggum reads, and
 * the host should still list it.
 */
const workerInfoSchema = z.object({
  id: z.string().min(1),
  host: z.string(),
  pid: z.number().int().positive(),
  concurrency: z.number().int().positive(),
  harnesses: z.array(z.string()).nullable(),
  startedAtMs: z.number().finite(),
  running: z.array(z.string()),
  seenAtMs: z.number().finite(),
});

/**
 * Writes the worker's entry with a time to live (`SET key JSON PX ttl`). A worker calls it every
 * heartbeat with `ttlMs` = 3 × heartbeat: a worker that dies (kill -9, machine lost) leaves no
 * entry behind once the ttl passes, without anyone cleaning up after it.
 */
export async function publishWorker(redis: Redis, info: WorkerInfo, ttlMs: number): Promise<void> {
  if (!Number.isFinite(ttlMs) || ttlMs < 1)
    throw new WiggumError('E_INTERNAL', `a worker's entry needs a time to live of 1 ms or more, not ${ttlMs}`);
  await redis.set(workerKey(info.id), JSON.stringify(info), 'PX', Math.ceil(ttlMs));
}

/** Deletes the worker's entry: a worker that leaves cleanly is not listed until its ttl runs out. */
export async function removeWorker(redis: Redis, id: string): Promise<void> {
  await redis.del(workerKey(id));
}

/**
 * Every worker entry in Redis, sorted by id. An entry that expires between the SCAN and the MGET is
 * not listed; one that cannot be read (not JSON, not a worker's shape: another program's key under
 * the prefix, or a worker of an incompatible wiggum) is skipped, since one bad entry must not hide
 * the others from `status`.
 */
export async function readWorkers(redis: Redis): Promise<WorkerInfo[]> {
  const keys = new Set<string>();
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${WORKER_KEY_PREFIX}*`, 'COUNT', SCAN_COUNT);
    // SCAN may return a key more than once while Redis rehashes: the set keeps one.
    for (const key of found) keys.add(key);
    cursor = next;
  } while (cursor !== '0');
  const all = [...keys];
  const workers: WorkerInfo[] = [];
  for (let start = 0; start < all.length; start += MGET_AT_ONCE) {
    const values = await redis.mget(all.slice(start, start + MGET_AT_ONCE));
    for (const value of values) {
      const info = value === null ? null : parseWorkerInfo(value);
      if (info !== null) workers.push(info);
    }
  }
  return workers.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** A worker entry's JSON, or null when it is not one. */
function parseWorkerInfo(text: string): WorkerInfo | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const checked = workerInfoSchema.safeParse(json);
  return checked.success ? checked.data : null;
}

function workerKey(id: string): string {
  return `${WORKER_KEY_PREFIX}${id}`;
}

/** How a worker is, as `status` and the Dashboard say it (workerHealth). */
export type WorkerHealth = 'ok' | 'late' | 'gone';

/**
 * How a worker is, from when it last published: `ok` within two heartbeats (one missed beat is
 * scheduling noise), `late` after that, `gone` past its ttl of three heartbeats (Redis drops the
 * entry then, so `gone` is seen only when it is read just before it expires, or when the worker's
 * clock is behind the reader's). A `seenAtMs` ahead of `nowMs` (a clock ahead) is `ok`. Pure.
 */
export function workerHealth(info: WorkerInfo, nowMs: number, heartbeatMs: number): WorkerHealth {
  const ageMs = nowMs - info.seenAtMs;
  if (ageMs > 3 * heartbeatMs) return 'gone';
  if (ageMs > 2 * heartbeatMs) return 'late';
  return 'ok';
}

/** The longest host part of an id: a full domain name would crowd every status line. */
const HOST_CHARS = 40;

/**
 * A worker's id: `<host>-<pid>-<start>`, the start time in base 36. The host and pid say where to
 * look; the start time keeps two workers apart that share both (containers are often all pid 1,
 * and may share a host name), and a restarted worker apart from its predecessor. Only
 * `[A-Za-z0-9._-]`: the id is a Redis key, a word in status lines and a cell of a Markdown table.
 */
export function workerId(host: string, pid: number, startedAtMs: number): string {
  const safeHost =
    host
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[-.]+|[-.]+$/g, '')
      .slice(0, HOST_CHARS) || 'host';
  return `${safeHost}-${pid}-${Math.max(0, Math.trunc(startedAtMs)).toString(36)}`;
}
