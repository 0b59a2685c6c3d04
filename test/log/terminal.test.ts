import { execFileSync, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { CLI, requireBuild, runCli } from '../helpers/child.js';
import { makeVault } from '../helpers/vault.js';

const TASK = '---\ntitle: Two stories\nharness: demo\n---\n- [ ] S-1 one\n- [ ] S-2 two\n';

/** Strips colours and line clears; each redraw of the status line (after a carriage return) becomes a line of its own. */
const plain = (text: string): string =>
  text
    .replace(/\u001b\[[0-9;]*[mK]/g, '')
    .replace(/\r\n/g, '\n')
    .replace(/\r/g, '\n');

function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Runs a command line under a pseudo-terminal with util-linux `script`, so that the CLI's stdout
 * is a TTY; resolves with everything it printed and its exit code (`-e` passes the child's on).
 */
function underTerminal(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  columns?: number,
): Promise<{ code: number | null; output: string }> {
  requireBuild();
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error('these tests need util-linux `script` (Debian/Ubuntu: apt-get install bsdutils)');
  }
  const command = `${columns === undefined ? '' : `stty cols ${columns} && `}${[process.execPath, CLI, ...args].map(shellQuote).join(' ')}`;
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, JOURNAL_STREAM: '', ...env },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('the log of the real CLI', () => {
  test('on a terminal: one compact line per event, paths relative to the vault, no JSON dumps', async () => {
    const vault = await makeVault();
    vault.task('compact', TASK);
    const { code, output } = await underTerminal([
      'start',
      '--vault',
      vault.root,
      '--exit-when-idle',
      '--log-level',
      'debug',
    ]);
    expect(code).toBe(0);
    expect(readdirSync(vault.layout.done)).toEqual(['compact.md']);
    const all = plain(output)
      .split('\n')
      .filter((line) => line !== '');
    // The status line under the log showed the running task's progress.
    expect(all).toContainEqual(
      expect.stringMatching(/^▶ compact [01] of 100 done, the (1st|2nd) running S-[12] \d+s$/),
    );
    const lines = all.filter((line) => !line.startsWith('▶'));
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) {
      // Not a multi-line object dump: no line that only opens an object, no `key: value` continuation.
      expect(line).not.toMatch(/^\s*[{}[\]],?\s*$/);
      expect(line).not.toMatch(/^\s+"?[\w.-]+"?\s*:/);
      expect(line).toMatch(/^\d\d:\d\d:\d\d (TRACE|DEBUG|INFO |WARN |ERROR|FATAL) \S/);
    }
    expect(lines).toContainEqual(
      expect.stringMatching(/ INFO {2}compact #2 {2}iteration 2: complete → Done {2}.*exitCode=0 .*durationMs=\d+/),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/ INFO {2}compact {2}done after 2 iterations {2}iterations=2 file=Done\/compact\.md$/),
    );
    expect(lines).toContainEqual(expect.stringMatching(/ INFO {2}watching Approved {2}vault=\. /));
    expect(output).not.toContain(vault.root);
  });

  test('on a terminal 100 columns wide, at the default level: every line fits, an iteration says its outcome once', async () => {
    const vault = await makeVault();
    vault.task(
      'narrow',
      '---\ntitle: Retried\nharness: demo\ndemo:\n  transient_failures: 1\n---\n- [ ] S-1 one\n- [ ] S-2 two\n',
    );
    const { code, output } = await underTerminal(['start', '--vault', vault.root, '--exit-when-idle'], {}, 100);
    expect(code).toBe(0);
    const lines = plain(output)
      .split('\n')
      .filter((line) => line.trim() !== '');
    const iterations = lines.filter((line) => /iteration \d+/.test(line) && !line.startsWith('▶'));
    expect(iterations.length).toBeGreaterThanOrEqual(3);
    for (const line of lines) {
      expect([...line].length, line).toBeLessThanOrEqual(99);
      expect(line).not.toMatch(/^\s*\{"/);
    }
    for (const line of iterations) {
      for (const word of ['continue', 'complete', 'transient'])
        expect(line.match(new RegExp(`\\b${word}\\b`, 'g'))?.length ?? 0, line).toBeLessThanOrEqual(1);
    }
    expect(iterations).toContainEqual(
      expect.stringMatching(/ INFO {2}narrow #1 {2}iteration 1: transient → retry 1 in [\d.]+ s {2}stories=0\/2$/),
    );
    expect(iterations).toContainEqual(
      expect.stringMatching(/ INFO {2}narrow #2 {2}iteration 2: complete → Done {2}stories=2\/2$/),
    );
  });

  test('not on a terminal: one JSON object per line, paths absolute', async () => {
    const vault = await makeVault();
    vault.task('json', TASK);
    const { code, stdout } = await runCli(['start', '--vault', vault.root, '--exit-when-idle'], {
      env: { ...process.env, JOURNAL_STREAM: '' },
    });
    expect(code).toBe(0);
    const records = stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string; file?: string });
    expect(records).toContainEqual(
      expect.objectContaining({ msg: 'done after 2 iterations', file: `${vault.layout.done}/json.md` }),
    );
  });
});
