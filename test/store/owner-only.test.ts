import { chmodSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadConfigCached } from '../../src/config/cache.js';
import { isWiggumError } from '../../src/errors.js';
import { writeToken } from '../../src/http/token.js';
import { writeEntry, writeEntrySync } from '../../src/notify/outbox.js';
import type { OutboxEntry } from '../../src/notify/outbox.js';
import { writeFileAtomic, writeFileAtomicSync } from '../../src/store/atomic-write.js';
import { scaffoldVault } from '../../src/vault/init.js';
import { tempDir } from '../helpers/temp-dir.js';

const modeOf = (path: string): number => statSync(path).mode & 0o777;

const entry = (id: string): OutboxEntry => ({
  version: 1,
  id,
  notifier: 'webhook-1',
  event: 'done',
  createdAtMs: 1,
  body: '{"url":"https://hooks.example/x?key=secret"}',
});

describe('files that hold secrets are owner-only (0600)', () => {
  test.each([
    ['writeFileAtomic', (path: string) => writeFileAtomic(path, 'x', { ownerOnly: true })],
    ['writeFileAtomicSync', (path: string) => Promise.resolve(writeFileAtomicSync(path, 'x', { ownerOnly: true }))],
  ])('%s: a new file is 0600, and an existing 0644 one is tightened', async (_name, write) => {
    const dir = tempDir();
    await write(join(dir, 'new.json'));
    expect(modeOf(join(dir, 'new.json'))).toBe(0o600);
    writeFileSync(join(dir, 'old.json'), 'old');
    chmodSync(join(dir, 'old.json'), 0o644);
    await write(join(dir, 'old.json'));
    expect(modeOf(join(dir, 'old.json'))).toBe(0o600);
  });

  test('ownerOnly still refuses to write through a symlink', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'target'), 'x');
    symlinkSync(join(dir, 'target'), join(dir, 'link'));
    const error = await writeFileAtomic(join(dir, 'link'), 'y', { ownerOnly: true }).catch((e: unknown) => e);
    expect(isWiggumError(error) && error.code === 'E_SYMLINK_REFUSED').toBe(true);
  });

  test('the config cache is written 0600, and one an older wiggum left 0644 is written anew 0600', async () => {
    const root = tempDir();
    mkdirSync(join(root, '.wiggum'));
    const cache = join(root, '.wiggum', 'config-cache.json');
    writeFileSync(cache, JSON.stringify({ key: 'an older format', config: {} }));
    chmodSync(cache, 0o644);
    await loadConfigCached({ vault: root });
    expect(modeOf(cache)).toBe(0o600);
  });

  test('every outbox file is 0600, in a folder only the owner can list', async () => {
    const dir = join(tempDir(), 'outbox');
    await writeEntry(dir, entry('e1'));
    writeEntrySync(dir, entry('e2'));
    expect(modeOf(join(dir, 'e1.webhook-1.json'))).toBe(0o600);
    expect(modeOf(join(dir, 'e2.webhook-1.json'))).toBe(0o600);
    expect(modeOf(dir)).toBe(0o700);
  });

  test('the HTTP token is 0600, also when an older file was 0644', async () => {
    const state = tempDir();
    writeFileSync(join(state, 'http-token'), 'old\n');
    chmodSync(join(state, 'http-token'), 0o644);
    await writeToken(state);
    expect(modeOf(join(state, 'http-token'))).toBe(0o600);
  });

  test('wiggum init writes the config 0600 and the sample task as any note', async () => {
    const root = join(tempDir(), 'vault');
    const made = await scaffoldVault(root);
    expect(made.created).toContain('.wiggum/config.yaml');
    expect(modeOf(join(root, '.wiggum', 'config.yaml'))).toBe(0o600);
    expect(modeOf(join(root, 'Approved', 'try-wiggum.md'))).toBe(0o644);
  });
});
