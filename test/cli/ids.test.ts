import { existsSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../helpers/child.js';
import { makeVault } from '../helpers/vault.js';

const TASK = '---\ntitle: One story\n---\n- [ ] US-001 One\n';

describe('task ids through wiggum run', () => {
  test('a name with accents runs under an id that keeps its letters; one in another script under a short id', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
    const cafe = await runCli(['run', vault.task('Café crème', TASK), '--no-stream']);
    expect(cafe.code).toBe(0);
    const japanese = await runCli(['run', vault.task('日本語のタスク', TASK), '--no-stream']);
    expect(japanese.code).toBe(0);
    const sessions = readdirSync(vault.layout.sessions).sort();
    expect(sessions).toContain('Cafe-creme');
    const short = sessions.find((name) => name !== 'Cafe-creme');
    expect(short).toMatch(/^no-tasuku-han-[0-9a-z]{6}$/);
    expect(readdirSync(vault.layout.done).sort()).toEqual(['Café crème.md', '日本語のタスク.md']);
  });

  test('a task an older wiggum ran under its dropped-letter id resumes that session, and commands take its name', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
    const three = '- [ ] US-001 One\n- [ ] US-002 Two\n- [ ] US-003 Three\n';
    // What an older wiggum left: the session under `Caf-cr-me`, the checkpoint naming it, no id: key.
    const first = await runCli([
      'run',
      vault.task('Café crème', `---\nid: Caf-cr-me\n---\n${three}`),
      '--max-iterations',
      '1',
      '--no-stream',
    ]);
    expect(first.code).toBe(1);
    const rejected = join(vault.layout.rejected, 'Café crème.md');
    writeFileSync(rejected, readFileSync(rejected, 'utf8').replace('id: Caf-cr-me\n', ''));
    renameSync(rejected, join(vault.layout.approved, 'Café crème.md'));

    const again = await runCli(['run', join(vault.layout.approved, 'Café crème.md'), '--no-stream']);
    expect(again.code).toBe(0);
    expect(readdirSync(vault.layout.sessions)).toEqual(['Caf-cr-me']);
    expect(existsSync(vault.layout.archive) ? readdirSync(vault.layout.archive) : []).toEqual([]);
    const history = readFileSync(join(vault.layout.sessions, 'Caf-cr-me', 'history.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(history.length).toBeGreaterThan(1);

    const status = await runCli(['status', 'Café crème', '--vault', vault.root]);
    expect(status.code).toBe(0);
  });
});
