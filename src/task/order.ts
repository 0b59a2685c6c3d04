/**
 * The order of work: whether a task in Approved/ may start yet, from its `depends_on:` and
 * `not_before:` and where the tasks it names are in the vault. Pure: the scan gathers the facts,
 * this decides, and test/task/order.test.ts holds the table.
 */

/** Where a task id was found in the vault. A task found in several places counts as the best one. */
export type Place = 'done' | 'pending' | 'rejected';

/** What the decision knows of one task in Approved/ that was read. */
export interface OrderTask {
  id: string;
  dependsOn: readonly string[];
  /** When `not_before:` allows it to start (ms), or null without one. */
  notBeforeMs: number | null;
}

/**
 * Why a task in Approved/ does not start yet because of the order of work. `dependencies` and
 * `not-before` pass by themselves (a dependency lands in Done/, the time comes); the others are
 * stuck until someone changes the vault: a dependency in Rejected/, a cycle, an id no task has.
 */
export type OrderWait =
  | { kind: 'dependencies'; ids: string[] }
  | { kind: 'not-before'; atMs: number }
  | { kind: 'dependency-rejected'; ids: string[] }
  | { kind: 'dependency-cycle'; ids: string[] }
  | { kind: 'dependency-unknown'; ids: string[] };

/**
 * The wait of each task of `tasks` (absent: it may start). `graph` holds the dependencies of every
 * task in Approved/ that was read (for cycles); `places` every task id in the vault and where it is.
 * First what cannot pass by itself (an unknown id, a cycle, a rejected dependency), then the
 * dependencies not yet done, then the time.
 */
export function orderWaits(
  tasks: readonly OrderTask[],
  graph: ReadonlyMap<string, readonly string[]>,
  places: ReadonlyMap<string, Place>,
  nowMs: number,
): Map<string, OrderWait> {
  const waits = new Map<string, OrderWait>();
  for (const task of tasks) {
    const wait = orderWaitOf(task, graph, places, nowMs);
    if (wait !== null) waits.set(task.id, wait);
  }
  return waits;
}

function orderWaitOf(
  task: OrderTask,
  graph: ReadonlyMap<string, readonly string[]>,
  places: ReadonlyMap<string, Place>,
  nowMs: number,
): OrderWait | null {
  const deps = unique(task.dependsOn);
  const unknown = deps.filter((id) => !places.has(id) && id !== task.id);
  if (unknown.length > 0) return { kind: 'dependency-unknown', ids: unknown };
  const cycle = cycleThrough(task.id, graph, places);
  if (cycle !== null) return { kind: 'dependency-cycle', ids: cycle };
  const rejected = deps.filter((id) => places.get(id) === 'rejected');
  if (rejected.length > 0) return { kind: 'dependency-rejected', ids: rejected };
  const pending = deps.filter((id) => places.get(id) !== 'done');
  if (pending.length > 0) return { kind: 'dependencies', ids: pending };
  if (task.notBeforeMs !== null && nowMs < task.notBeforeMs) return { kind: 'not-before', atMs: task.notBeforeMs };
  return null;
}

/**
 * The ids of a cycle of dependencies that leads back to `start` (start first), or null. A task in
 * Done/ ends every path: what depends on it may run, so it closes no cycle.
 */
function cycleThrough(
  start: string,
  graph: ReadonlyMap<string, readonly string[]>,
  places: ReadonlyMap<string, Place>,
): string[] | null {
  const seen = new Set<string>();
  const walk = (id: string, path: string[]): string[] | null => {
    for (const next of graph.get(id) ?? []) {
      if (next === start) return path;
      if (seen.has(next) || places.get(next) === 'done') continue;
      seen.add(next);
      const found = walk(next, [...path, next]);
      if (found !== null) return found;
    }
    return null;
  };
  return walk(start, [start]);
}

/** A task found in several places: Done/ wins (it is done), then a copy still to run, then Rejected/. */
export function betterPlace(a: Place | undefined, b: Place): Place {
  if (a === undefined) return b;
  const rank: Record<Place, number> = { done: 0, pending: 1, rejected: 2 };
  return rank[a] <= rank[b] ? a : b;
}

/** Whether the wait passes by itself (a dependency not done yet, a time not come), unlike a stuck one. */
export function passesByItself(wait: OrderWait): boolean {
  return wait.kind === 'dependencies' || wait.kind === 'not-before';
}

/**
 * What a task waits for, in words, for status, the Dashboard and the log. `time` writes a moment
 * as the reader's page does (status: local time with its zone).
 */
export function orderWaitText(wait: OrderWait, time: (ms: number) => string): string {
  const list = wait.kind === 'not-before' ? '' : wait.ids.join(', ');
  switch (wait.kind) {
    case 'dependencies':
      return `waiting for ${list} (depends_on): it starts once ${wait.ids.length === 1 ? 'that task is' : 'they are'} in Done/`;
    case 'not-before':
      return `not before ${time(wait.atMs)} (not_before)`;
    case 'dependency-rejected':
      return `stuck: its dependency ${list} was rejected; move ${wait.ids.length === 1 ? 'it' : 'them'} back to Approved/ to try again, or remove ${wait.ids.length === 1 ? 'it' : 'them'} from depends_on`;
    case 'dependency-cycle':
      return `stuck: depends_on makes a cycle (${[...wait.ids, wait.ids[0]].join(' → ')}); none of these tasks runs until one of them stops depending on the next`;
    case 'dependency-unknown':
      return `stuck: depends_on names ${list}, which no task file in the vault has as its id; fix the id or add the task`;
  }
}

/**
 * Reads `not_before:`: an ISO-8601 date-time, `T` or a space between date and time, seconds and
 * fraction optional, with a zone (`Z`, `+02:00`, `+0200`, `+02`) or without one, which is the
 * local time of the machine the daemon runs on (Obsidian's date-time property writes no zone); a
 * date alone is its first moment, local. Returns the moment in ms, or null when it does not parse
 * or names a day or time that does not exist.
 */
export function parseNotBefore(text: string): number | null {
  const match =
    /^(\d{4})-(\d{2})-(\d{2})(?:(?:[Tt]|[ \t]+)(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?[ \t]*(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?)?$/.exec(
      text.trim(),
    );
  if (match === null) return null;
  const [, y, mo, d, h = '0', mi = '0', sec = '0', frac = '', z, sign, zh, zm = '0'] = match;
  const parts = [Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec)] as const;
  const ms = Math.floor(Number(`0.${frac || '0'}`) * 1000);
  if (parts[3] > 23 || parts[4] > 59 || parts[5] > 59 || Number(zh ?? 0) > 23 || Number(zm) > 59) return null;
  const utc = Date.UTC(...parts, ms);
  // The fields must name a real day: Date would roll 2026-02-30 over into March.
  const check = new Date(utc);
  if (check.getUTCMonth() !== parts[1] || check.getUTCDate() !== parts[2]) return null;
  if (z !== undefined) return utc;
  if (sign !== undefined) return utc - (sign === '-' ? -1 : 1) * (Number(zh) * 60 + Number(zm)) * 60_000;
  return new Date(...parts, ms).getTime();
}

/** `depends_on:` as ids: a list, or one id alone; an Obsidian link `[[chain-a]]` names the task `chain-a`. */
export function dependencyIds(value: readonly string[]): string[] {
  return unique(
    value.map((id) =>
      id
        .trim()
        .replace(/^\[\[([^\]|#]+)(?:[|#][^\]]*)?\]\]$/, '$1')
        .replace(/\.md$/i, ''),
    ),
  );
}

function unique(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}
