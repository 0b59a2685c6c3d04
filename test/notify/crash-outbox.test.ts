import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { NotifierDefinition } from '../../src/config/notifier.js';
import { readOutbox } from '../../src/notify/outbox.js';
import { NotifySender } from '../../src/notify/sender.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { tempDir } from '../helpers/temp-dir.js';

const notifier = (key: string, events: string[]): NotifierDefinition =>
  ({
    key,
    label: `command ${key}`,
    events,
    timeoutMs: 1000,
    retry: { baseDelayMs: 100, maxDelayMs: 1000, giveUpAfterMs: 60_000 },
    maxPending: 10,
    kind: 'command',
    command: 'true',
    args: [],
    env: {},
  }) as NotifierDefinition;

describe('keepForNextStart: the event of a crashing daemon', () => {
  test('is written to the outbox at once, for each notifier that wants it, and read back by the next start', async () => {
    const vault = tempDir('wiggum-crash-');
    const dir = join(vault, '.wiggum', 'outbox');
    const sender = new NotifySender({
      dir,
      vault,
      notifiers: [notifier('a', ['daemon']), notifier('b', ['done'])],
      clock: new FakeClock(),
      random: () => 0.5,
      logger: captureLogger().logger,
      env: {},
      onChange: () => undefined,
      newId: () => 'ev-1',
    });
    // Synchronous: nothing is awaited, as in an uncaughtException handler just before exit.
    sender.keepForNextStart({
      event: 'daemon',
      task: null,
      details: { daemon: { state: 'failed', pid: 1, reason: 'crashed: boom' } },
    });
    const { entries } = await readOutbox(dir);
    expect(entries.map((entry) => [entry.id, entry.notifier, entry.event])).toEqual([['ev-1', 'a', 'daemon']]);
    const body = JSON.parse(entries[0]?.body ?? '{}') as { id: string; event: string; daemon?: { state: string } };
    expect(body).toMatchObject({ id: 'ev-1', event: 'daemon' });
    expect(readFileSync(join(dir, 'ev-1.a.json'), 'utf8')).toContain('crashed: boom');
  });
});
