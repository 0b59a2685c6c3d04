import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { sampleRefusal } from '../../src/vault/init.js';
import type { SampleFacts } from '../../src/vault/init.js';
import { runCli } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('wiggum init on a used vault', () => {
  test.each<[string, SampleFacts, string | null]>([
    ['a new vault gets the sample', { vaultExisted: false, sampleAt: null, sessionExists: false }, null],
    [
      'a vault set up before does not',
      { vaultExisted: true, sampleAt: null, sessionExists: false },
      'this vault was set up before (.wiggum/ exists)',
    ],
    [
      'nor one where the sample is (in Done/)',
      { vaultExisted: false, sampleAt: 'Done/try-wiggum.md', sessionExists: false },
      'the sample task is already at Done/try-wiggum.md',
    ],
    [
      'nor one where it ran before',
      { vaultExisted: false, sampleAt: null, sessionExists: true },
      'the sample task ran here before (its session is in .wiggum/sessions/)',
    ],
  ])('%s', (_, facts, refusal) => {
    expect(sampleRefusal(facts)).toBe(refusal);
  });

  test('after the sample ran to Done/, init again adds no sample and says why, also once that file is gone', async () => {
    const root = join(tempDir(), 'vault');
    expect((await runCli(['init', root])).code).toBe(0);
    expect((await runCli(['run', join(root, 'Approved', 'try-wiggum.md'), '--no-stream'])).code).toBe(0);
    expect(existsSync(join(root, 'Done', 'try-wiggum.md'))).toBe(true);

    const again = await runCli(['init', root]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('no sample task added: the sample task is already at Done/try-wiggum.md');
    expect(again.stdout).not.toContain('the sample task runs');
    expect(readdirSync(join(root, 'Approved'))).toEqual([]);

    rmSync(join(root, 'Done', 'try-wiggum.md'));
    const third = await runCli(['init', root]);
    expect(third.stdout).toContain('no sample task added: the sample task ran here before');
    expect(readdirSync(join(root, 'Approved'))).toEqual([]);
  });
});
