import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadConfigCached } from '../../src/config/cache.js';
import { loadConfig } from '../../src/config/load.js';
import { isWiggumError } from '../../src/errors.js';
import { tempDir } from '../helpers/temp-dir.js';

function vault(config?: string): string {
  const root = tempDir();
  mkdirSync(join(root, '.wiggum'));
  if (config !== undefined) writeFileSync(join(root, '.wiggum', 'config.yaml'), config);
  return root;
}

const cacheOf = (root: string): string => join(root, '.wiggum', 'config-cache.json');

describe('loadConfigCached', () => {
  test('gives what loadConfig gives, and remembers it', async () => {
    const root = vault('daemon:\n  concurrency: 3\n');
    const cached = await loadConfigCached({ vault: root });
    expect(cached).toEqual(await loadConfig({ vault: root }));
    expect(existsSync(cacheOf(root))).toBe(true);
    // A hit: the cache is what comes back (marked here to tell it from a fresh load).
    const file = JSON.parse(readFileSync(cacheOf(root), 'utf8')) as {
      key: string;
      config: { daemon: { concurrency: number } };
    };
    file.config.daemon.concurrency = 99;
    writeFileSync(cacheOf(root), JSON.stringify(file));
    expect((await loadConfigCached({ vault: root })).daemon.concurrency).toBe(99);
  });

  test('an edited vault config, a new one, a --config file and overrides each make a new entry', async () => {
    const root = vault();
    expect((await loadConfigCached({ vault: root })).daemon.concurrency).toBe(2);
    writeFileSync(join(root, '.wiggum', 'config.yaml'), 'daemon:\n  concurrency: 4\n');
    expect((await loadConfigCached({ vault: root })).daemon.concurrency).toBe(4);
    // Same size, same second: only the content differs.
    writeFileSync(join(root, '.wiggum', 'config.yaml'), 'daemon:\n  concurrency: 5\n');
    expect((await loadConfigCached({ vault: root })).daemon.concurrency).toBe(5);
    const extra = join(tempDir(), 'extra.yaml');
    writeFileSync(extra, 'daemon:\n  concurrency: 6\n');
    expect((await loadConfigCached({ vault: root, file: extra })).daemon.concurrency).toBe(6);
    expect(
      (await loadConfigCached({ vault: root, overrides: { daemon: { concurrency: 7 } } })).daemon.concurrency,
    ).toBe(7);
    expect((await loadConfigCached({ vault: root })).daemon.concurrency).toBe(5);
  });

  test('a config that does not load is reported, never cached', async () => {
    const root = vault('daemon:\n  concurrency: many\n');
    const error = await loadConfigCached({ vault: root }).catch((e: unknown) => e);
    expect(isWiggumError(error, 'E_CONFIG')).toBe(true);
    expect(existsSync(cacheOf(root))).toBe(false);
  });

  test('a corrupt cache is ignored and replaced; a folder that is not a vault gets none', async () => {
    const root = vault();
    writeFileSync(cacheOf(root), '{ not json');
    expect((await loadConfigCached({ vault: root })).daemon.concurrency).toBe(2);
    expect(() => JSON.parse(readFileSync(cacheOf(root), 'utf8')) as unknown).not.toThrow();
    const plain = tempDir();
    await loadConfigCached({ vault: plain });
    expect(existsSync(join(plain, '.wiggum'))).toBe(false);
  });
});
