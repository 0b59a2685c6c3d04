import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { isStaleTakeover } from '../../src/lock/owner-lock.js';
import { REPO_ROOT, requireBuild, spawn } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';

const OWNER_LOCK = join(REPO_ROOT, 'dist', 'lock', 'owner-lock.js');

/**
 * A contender: waits for the start file, tries to take the lock, prints `won` or `lost`, and a
 * winner holds the lock until the end file appears, so that every other contender meets it.
 */
const CONTENDER = `
import { existsSync } from 'node:fs';
const [lockModule, lockFile, startFile, endFile] = process.argv.slice(1);
const { acquireOwnerLock } = await import(lockModule);
while (!existsSync(startFile)) await new Promise((resolve) => setTimeout(resolve, 2));
try {
  const lock = await acquireOwnerLock(lockFile, (owner) => 'held by ' + owner.pid);
  process.stdout.write('won\\n');
  // Held until the test is done with the round; never past a minute, should the test have failed.
  const giveUp = Date.now() + 60_000;
  while (!existsSync(endFile) && Date.now() < giveUp) await new Promise((resolve) => setTimeout(resolve, 5));
  await lock.release();
} catch (error) {
  process.stdout.write(error.code === 'E_LOCKED' ? 'lost\\n' : 'error ' + error.message + '\\n');
}
`;

function contend(lockFile: string, startFile: string, endFile: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [
      '--input-type=module',
      '-e',
      CONTENDER,
      OWNER_LOCK,
      lockFile,
      startFile,
      endFile,
    ]);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', () => resolve(out.trim()));
  });
}

describe('the owner lock under contention', () => {
  test.each([
    ['a stale lock', false],
    // A process killed while taking the lock over left its takeover file: all eight find it gone stale at once.
    ['a stale lock and a takeover its killed taker left', true],
  ])(
    'eight processes racing for %s: exactly one takes it, the others are told it is held',
    async (_case, deadTakeover) => {
      requireBuild();
      for (let round = 0; round < 3; round += 1) {
        const dir = tempDir('wiggum-lock-');
        const lockFile = join(dir, 'task.lock');
        // A stale lock: a pid that cannot be running (beyond pid_max), on this host.
        writeFileSync(
          lockFile,
          JSON.stringify({ pid: 4_194_999, startTicks: '1', host: hostname(), startedAt: 'long ago' }),
        );
        if (deadTakeover)
          writeFileSync(
            `${lockFile}.takeover`,
            JSON.stringify({ pid: 4_194_998, startTicks: '1', host: hostname(), startedAt: 'a moment ago' }),
          );
        const startFile = join(dir, 'start');
        const endFile = join(dir, 'end');
        const outcomes = Array.from({ length: 8 }, () => contend(lockFile, startFile, endFile));
        writeFileSync(startFile, '');
        // Once seven have settled, every contender has met the lock: the holder may let go.
        const settled: string[] = [];
        try {
          await new Promise<void>((resolve) => {
            for (const outcome of outcomes) {
              void outcome.then((result) => {
                settled.push(result);
                if (settled.length >= 7) resolve();
              });
            }
          });
        } finally {
          writeFileSync(endFile, '');
        }
        const results = await Promise.all(outcomes);
        expect(results.filter((r) => r === 'won')).toHaveLength(1);
        expect(results.filter((r) => r === 'lost')).toHaveLength(7);
        expect(existsSync(lockFile)).toBe(false);
        expect(readdirSync(dir).filter((name) => name.includes('takeover'))).toEqual([]);
        expect(JSON.parse(readFileSync(`${lockFile}.stale`, 'utf8'))).toMatchObject({ pid: 4_194_999 });
      }
    },
  );
});

describe('isStaleTakeover', () => {
  test.each<[string, { alive: boolean } | null, number, boolean]>([
    ['written just now by a live process: a takeover under way', { alive: true }, 5, false],
    ['written just now by a process that is gone (killed while taking over)', { alive: false }, 5, true],
    ['old, by a process that is gone', { alive: false }, 60_000, true],
    ['old, by a live process stuck in it', { alive: true }, 60_000, true],
    ['unreadable, just now: may be a takeover under way', null, 5, false],
    ['unreadable and old', null, 60_000, true],
  ])('%s → stale: %s', (_case, writer, ageMs, stale) => {
    expect(isStaleTakeover(writer, ageMs)).toBe(stale);
  });
});
