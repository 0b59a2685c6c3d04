import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IterationRecord } from '../../src/memory/history.js';

/** A task's history.jsonl (one record per iteration run), or [] when it has none yet. */
export function historyOf(sessionsRoot: string, id: string): IterationRecord[] {
  const file = join(sessionsRoot, id, 'history.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as IterationRecord);
}
