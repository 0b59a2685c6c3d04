import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../helpers/child.js';
import { historyOf } from '../helpers/history.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeVault } from '../helpers/vault.js';

/**
 * persistence_loop.retry.retriable_errors through the built `wiggum run`: a command harness (a real
 * script) whose first run fails in a way only the user knows to be transient, then answers.
 */
function hiccupAgent(firstRun: string): string {
  const dir = tempDir('wiggum-hiccup-');
  const agent = join(dir, 'agent.sh');
  const count = join(dir, 'runs');
  writeFileSync(
    agent,
    `#!/bin/sh
cat > /dev/null
n=$(( $(cat '${count}' 2>/dev/null || echo 0) + 1 )); echo $n > '${count}'
if [ $n -eq 1 ]; then ${firstRun}; fi
printf 'Finished.\\n<promise>COMPLETE</promise>\\n'
`,
  );
  chmodSync(agent, 0o755);
  return agent;
}

const TASK = '---\ntitle: hiccup\nharness: hiccup\nmax_iterations: 1\n---\n# hiccup\n\nDo the thing.\n';
const RULES = { exit_codes: [42], patterns: ['upstream (wobble|hiccup)'] };

async function runWith(
  firstRun: string,
  rules: object,
): Promise<{ code: number | null; done: boolean; history: ReturnType<typeof historyOf> }> {
  const vault = await makeVault({
    config: {
      persistence_loop: { retry: { retriable_errors: rules } },
      harnesses: { hiccup: { kind: 'command', command: hiccupAgent(firstRun) } },
    },
  });
  const result = await runCli(['run', vault.task('hiccup', TASK), '--no-stream']);
  return {
    code: result.code,
    done: existsSync(join(vault.layout.done, 'hiccup.md')),
    history: historyOf(vault.layout.sessions, 'hiccup'),
  };
}

describe('persistence_loop.retry.retriable_errors', () => {
  test.each([
    ['an exit code it lists', 'echo "the backend hiccupped" >&2; exit 42'],
    ['output matching a pattern it lists (stderr)', 'echo "fatal: upstream wobble" >&2; exit 1'],
    ['output matching a pattern it lists (stdout, any case)', 'echo "Upstream Hiccup, sorry"; exit 3'],
  ])('%s: transient, retried without using an iteration', async (_name, firstRun) => {
    const { code, done, history } = await runWith(firstRun, RULES);
    expect(code).toBe(0);
    expect(done).toBe(true);
    expect(history.map((record) => [record.iteration, record.outcome, record.action, record.error?.code])).toEqual([
      [1, 'transient', 'retry', 'E_HARNESS_RETRIABLE'],
      [1, 'complete', 'done', undefined],
    ]);
  });

  test('a failure it does not list is an ordinary failed iteration', async () => {
    const { code, done, history } = await runWith('echo "something else" >&2; exit 43', RULES);
    expect(code).toBe(1);
    expect(done).toBe(false);
    expect(history.map((record) => [record.iteration, record.outcome])).toEqual([[1, 'nonzero-exit']]);
  });

  test('a pattern that is not a regular expression is a config error naming the key', async () => {
    const root = tempDir('wiggum-badrx-');
    for (const folder of ['Approved', 'Done', 'Rejected', '.wiggum']) mkdirSync(join(root, folder));
    writeFileSync(
      join(root, '.wiggum', 'config.yaml'),
      'persistence_loop:\n  retry:\n    retriable_errors:\n      patterns: ["(unclosed"]\n',
    );
    const result = await runCli(['validate', '--vault', root]);
    expect(result.code).toBe(2);
    expect(result.stdout + result.stderr).toMatch(
      /persistence_loop\.retry\.retriable_errors\.patterns\.0: "\(unclosed" is not a valid regular expression/,
    );
  });
});
