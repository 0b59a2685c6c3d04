import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { stringify } from 'yaml';
import { CLI, requireBuild, runCli } from '../helpers/child.js';
import { gitRepo } from '../helpers/git-repo.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitFor, waitForFile } from '../helpers/wait.js';

/**
 * An agent that counts its calls in $AGENT_DIR/calls. At call AGENT_HOLD_AT it marks
 * $AGENT_DIR/holding-N and waits to be stopped; from call AGENT_DONE_AT on it prints
 * <promise>$AGENT_PROMISE</promise> (its own setting, not wiggum's); from call AGENT_FAIL_AT on it
 * exits 4.
 */
const COUNTING_AGENT = `#!/bin/sh
: "\${AGENT_DIR:?}"; mkdir -p "$AGENT_DIR"
n=$(( $(cat "$AGENT_DIR/calls" 2>/dev/null || echo 0) + 1 )); echo "$n" > "$AGENT_DIR/calls"
cat >/dev/null
echo "agent call $n"
if [ "\${AGENT_HOLD_AT:-0}" = "$n" ]; then : > "$AGENT_DIR/holding-$n"; while :; do sleep 1; done; fi
if [ "\${AGENT_FAIL_AT:-0}" -gt 0 ] && [ "$n" -ge "\${AGENT_FAIL_AT:-0}" ]; then exit 4; fi
if [ "\${AGENT_DONE_AT:-0}" -gt 0 ] && [ "$n" -ge "\${AGENT_DONE_AT:-0}" ]; then echo "<promise>\${AGENT_PROMISE:-COMPLETE}</promise>"; fi
exit 0
`;

interface Repo {
  root: string;
  ralph(...args: string[]): ReturnType<typeof runCli>;
  /** Starts a loop, waits until the agent `name` holds in call `at`, then Ctrl-C: its exit code and stderr. */
  interruptAt(name: string, at: number, ...args: string[]): Promise<{ code: number | null; stderr: string }>;
  calls(name: string): number;
  loopFile(change: string, folder?: 'done' | 'rejected'): string;
  writeConfig(agents: Record<string, Record<string, string>>): void;
}

/** A git repository whose config defines counting agents; `other`, never meant to run, is the default. */
function repo(agents: Record<string, Record<string, string>>): Repo {
  const root = gitRepo();
  const work = tempDir('wiggum-agents-');
  const script = join(work, 'counting-agent.sh');
  writeFileSync(script, COUNTING_AGENT);
  chmodSync(script, 0o755);
  mkdirSync(join(root, '.wiggum'));
  const writeConfig = (defined: Record<string, Record<string, string>>): void => {
    const harnesses = Object.fromEntries(
      Object.entries({ other: { AGENT_DONE_AT: '1' }, ...defined }).map(([name, env]) => [
        name,
        { kind: 'command', command: script, args: [], env: { AGENT_DIR: join(work, name), ...env } },
      ]),
    );
    writeFileSync(
      join(root, '.wiggum', 'config.yaml'),
      stringify({
        harness: { default: 'other', stop_grace: '500ms' },
        harnesses,
        persistence_loop: { retry: { base_delay: '10ms' } },
        // The agents count their calls in a folder of the test's: declared writable across the sandbox.
        sandbox: { writable: [work] },
      }),
    );
  };
  writeConfig(agents);
  return {
    root,
    ralph: (...args) => runCli(['ralph', ...args], { cwd: root }),
    interruptAt: async (name, at, ...args) => {
      requireBuild();
      const child = spawn(process.execPath, [CLI, 'ralph', ...args, '--no-stream'], {
        cwd: root,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
      await waitForFile(join(work, name, `holding-${at}`));
      child.kill('SIGINT');
      return { code: await exited, stderr };
    },
    calls: (name) =>
      existsSync(join(work, name, 'calls')) ? Number(readFileSync(join(work, name, 'calls'), 'utf8').trim()) : 0,
    loopFile: (change, folder) =>
      join(root, '.wiggum', 'ralph', ...(folder === undefined ? [] : [folder]), `${change}.md`),
    writeConfig,
  };
}

const frontmatter = (file: string): string => readFileSync(file, 'utf8').split('\n---\n')[0] ?? '';

describe('wiggum ralph remembers the settings of its loop', () => {
  test('a resume without flags runs the recorded harness, whose recorded completion promise ends the loop', async () => {
    const r = repo({ keeper: { AGENT_HOLD_AT: '2', AGENT_DONE_AT: '3', AGENT_PROMISE: 'SHIPPED' } });
    expect(
      await r.interruptAt(
        'keeper',
        2,
        'go',
        '--change',
        'c1',
        '--harness',
        'keeper',
        '--completion-promise',
        'SHIPPED',
        '--max-iterations',
        '6',
      ),
    ).toMatchObject({ code: 3 });
    expect(frontmatter(r.loopFile('c1'))).toMatch(
      /\nharness: keeper\nmax_iterations: 6\ncompletion_promise: "SHIPPED"\n/,
    );

    const resumed = await r.ralph('--change', 'c1', '--no-stream');
    expect(resumed.code).toBe(0);
    expect(r.calls('keeper')).toBe(3);
    expect(r.calls('other')).toBe(0);
    expect(resumed.stderr).not.toContain('instead of the recorded');
  });

  test('the recorded max iterations counts as the loop does: the interrupted iteration runs again, then the loop is rejected', async () => {
    const r = repo({ bounded: { AGENT_HOLD_AT: '2' } });
    expect(
      await r.interruptAt('bounded', 2, 'go', '--change', 'c2', '--harness', 'bounded', '--max-iterations', '2'),
    ).toMatchObject({ code: 3 });
    // With the same prompt again: a resume too.
    const resumed = await r.ralph('go', '--change', 'c2', '--no-stream');
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toContain('E_MAX_ITERATIONS');
    expect(r.calls('bounded')).toBe(3);
    expect(r.calls('other')).toBe(0);
  });

  test('a different --harness on resume is used, said in one line naming both, recorded for the next resume and shown by --status', async () => {
    const r = repo({ 'alpha-agent': { AGENT_HOLD_AT: '2' }, 'beta-agent': { AGENT_HOLD_AT: '1', AGENT_DONE_AT: '2' } });
    expect(
      await r.interruptAt(
        'alpha-agent',
        2,
        'go',
        '--change',
        'c3',
        '--harness',
        'alpha-agent',
        '--max-iterations',
        '5',
      ),
    ).toMatchObject({ code: 3 });
    expect((await r.ralph('--status', '--change', 'c3')).stdout).toContain(
      'recorded: harness alpha-agent, max iterations 5',
    );

    const switched = await r.interruptAt('beta-agent', 1, '--change', 'c3', '--harness', 'beta-agent');
    expect(switched.code).toBe(3);
    expect(
      switched.stderr
        .split('\n')
        .filter((line) => line.includes('harness: beta-agent instead of the recorded alpha-agent')),
    ).toHaveLength(1);
    expect(frontmatter(r.loopFile('c3'))).toMatch(/\nharness: beta-agent\nmax_iterations: 5\n/);
    expect((await r.ralph('--status', '--change', 'c3')).stdout).toContain(
      'recorded: harness beta-agent, max iterations 5',
    );
    const json = JSON.parse((await r.ralph('--status', '--json', '--change', 'c3')).stdout) as { recorded: unknown };
    expect(json.recorded).toEqual({ harness: 'beta-agent', maxIterations: 5 });

    const resumed = await r.ralph('--change', 'c3', '--no-stream');
    expect(resumed.code).toBe(0);
    expect([r.calls('alpha-agent'), r.calls('beta-agent'), r.calls('other')]).toEqual([2, 2, 0]);
    expect(resumed.stderr).not.toContain('instead of the recorded');
  });

  test('a recorded --fail-fast holds on resume: the first failing call ends the loop', async () => {
    const r = repo({ failer: { AGENT_HOLD_AT: '2', AGENT_FAIL_AT: '3' } });
    expect(
      await r.interruptAt('failer', 2, 'go', '--change', 'c4', '--harness', 'failer', '--fail-fast'),
    ).toMatchObject({ code: 3 });
    expect(frontmatter(r.loopFile('c4'))).toMatch(/\nfail_fast: true\n/);
    const resumed = await r.ralph('--change', 'c4', '--no-stream');
    expect(resumed.code).toBe(1);
    expect(r.calls('failer')).toBe(3);
    expect(existsSync(r.loopFile('c4', 'rejected'))).toBe(true);
  });

  test('a recorded harness the config no longer defines: exit 2 saying to pass --harness, nothing runs, the file is untouched; with --harness it runs', async () => {
    const r = repo({ gone: { AGENT_HOLD_AT: '1' } });
    expect(await r.interruptAt('gone', 1, 'go', '--change', 'c5', '--harness', 'gone')).toMatchObject({ code: 3 });
    r.writeConfig({});
    const before = readFileSync(r.loopFile('c5'), 'utf8');
    const refused = await r.ralph('--change', 'c5', '--no-stream');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('recorded harness "gone" is not defined in the config');
    expect(refused.stderr).toContain('pass --harness NAME');
    expect(readFileSync(r.loopFile('c5'), 'utf8')).toBe(before);
    expect([r.calls('gone'), r.calls('other')]).toEqual([1, 0]);

    const rescued = await r.ralph('--change', 'c5', '--harness', 'other', '--no-stream');
    expect(rescued.code).toBe(0);
    expect(rescued.stderr).toContain('harness: other instead of the recorded gone');
    expect(r.calls('other')).toBe(1);
  });

  test('a loop file without recorded settings (an older wiggum wrote it) runs with harness.default and records it', async () => {
    const r = repo({});
    mkdirSync(join(r.root, '.wiggum', 'ralph'));
    writeFileSync(r.loopFile('c6'), '---\nid: c6\ntitle: "go"\nworkdir: .\n---\ngo\n');
    const resumed = await r.ralph('--change', 'c6', '--no-stream');
    expect(resumed.code).toBe(0);
    expect(r.calls('other')).toBe(1);
    expect(frontmatter(r.loopFile('c6', 'done'))).toMatch(/\nworkdir: \.\nharness: other\n/);
  });

  test('a second ralph for a running change is refused (exit 2) and does not rewrite the settings the first one runs with', async () => {
    const r = repo({ 'alpha-agent': { AGENT_HOLD_AT: '1' } });
    requireBuild();
    const first = spawn(
      process.execPath,
      [CLI, 'ralph', 'go', '--change', 'c7', '--harness', 'alpha-agent', '--no-stream'],
      { cwd: r.root, stdio: 'ignore' },
    );
    const exited = new Promise<number | null>((resolve) => first.once('exit', (code) => resolve(code)));
    await waitForFile(join(r.root, '.wiggum', 'locks', 'c7.lock'));
    await waitFor(() => r.calls('alpha-agent') === 1, 'the first agent call');
    const before = readFileSync(r.loopFile('c7'), 'utf8');
    const second = await r.ralph('--change', 'c7', '--harness', 'other', '--no-stream');
    expect(second.code).toBe(2);
    expect(second.stderr).toContain('already running');
    expect(readFileSync(r.loopFile('c7'), 'utf8')).toBe(before);
    first.kill('SIGINT');
    expect(await exited).toBe(3);
    expect(r.calls('other')).toBe(0);
  });

  test('with no --harness, nothing recorded and no harness.default, the loop does not run: exit 2, saying to pass --harness', async () => {
    const r = repo({});
    writeFileSync(
      join(r.root, '.wiggum', 'config.yaml'),
      readFileSync(join(r.root, '.wiggum', 'config.yaml'), 'utf8').replace('default: other', "default: ''"),
    );
    const refused = await r.ralph('go', '--change', 'c8', '--no-stream');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--harness NAME');
    expect(r.calls('other')).toBe(0);
    expect(existsSync(join(r.root, '.wiggum', 'sessions', 'c8', 'history.jsonl'))).toBe(false);
  });
});
