import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { startAfresh } from '../../src/memory/json-text.js';
import { runCli } from '../helpers/child.js';
import { makeVault } from '../helpers/vault.js';

const CORRUPTER = { kind: 'command', command: '/bin/sh', args: ['-c', `printf '\\173broken' > "$WIGGUM_PRD"`] };

describe('a task whose memory is corrupt', () => {
  test('every retry command the output and the report suggest names the task, and --fresh works as written', async () => {
    const vault = await makeVault({ config: { harnesses: { corrupter: CORRUPTER } } });
    const result = await runCli([
      'run',
      vault.task('broken-memory', '---\nharness: corrupter\n---\nDo it.\n'),
      '--no-stream',
    ]);
    expect(result.code).toBe(1);
    const report = readFileSync(join(vault.layout.rejected, 'broken-memory.md'), 'utf8');
    expect(report).toContain('E_MEMORY_CORRUPT');
    const commands = [...`${result.stdout}${result.stderr}${report}`.matchAll(/`(wiggum retry[^`]*)`/g)].map(
      (match) => match[1] ?? '',
    );
    expect(commands.length).toBeGreaterThan(0);
    for (const command of commands) expect(command.split(' ')).toContain('broken-memory');
    const fresh = commands.find((command) => command.includes('--fresh'));
    expect(fresh).toBe('wiggum retry broken-memory --fresh');

    const retried = await runCli(fresh!.split(' ').slice(1), { cwd: vault.root });
    expect(retried.code).toBe(0);
    expect(existsSync(join(vault.layout.approved, 'broken-memory.md'))).toBe(true);
    expect(readdirSync(vault.layout.archive).some((name) => name.includes('broken-memory'))).toBe(true);
  });

  test.each([
    [
      '/v/.wiggum/sessions/Add-x/prd.json',
      'start the task afresh with `wiggum retry Add-x --fresh` (the old session is archived)',
    ],
    // Not in a session folder: no id to name, so no command that would fail as written.
    ['/v/elsewhere/prd.json', 'start the task afresh with wiggum retry and --fresh (the old session is archived)'],
  ])('the hint for %s', (path, hint) => {
    expect(startAfresh(path)).toBe(hint);
  });
});
