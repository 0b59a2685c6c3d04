import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../helpers/child.js';
import { DaemonProcess, drainedAfterEach } from '../helpers/daemon.js';
import { historyOf } from '../helpers/history.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeVault } from '../helpers/vault.js';
import { waitFor } from '../helpers/wait.js';
import type { TestVault } from '../helpers/vault.js';

/**
 * Questions for a person through the real daemon, with a scripted agent (a real shell script, a
 * `command` harness) that keeps every prompt it reads and asks, in its reply or in the file
 * `$WIGGUM_QUESTION`, on the call its environment names; from ASK_DONE_AT on it prints the promise.
 */
const daemons = drainedAfterEach();

function scriptedAgent(): { agent: string; dir: string } {
  const dir = tempDir('wiggum-asker-');
  const agent = join(dir, 'agent.sh');
  writeFileSync(
    agent,
    `#!/bin/sh
d=${dir}/$WIGGUM_TASK_ID; mkdir -p "$d"
n=$(( $(cat "$d/calls" 2>/dev/null || echo 0) + 1 )); echo "$n" > "$d/calls"
cat > "$d/prompt.$n.txt"
[ "\${ASK_ECHO:-0}" = 1 ] && cat "$d/prompt.$n.txt"
q="Which database should $WIGGUM_TASK_ID use?"
[ "\${ASK_Q:-}" = EMPTY ] && q=""
[ "\${ASK_Q:-}" = BIG ] && q=$(head -c 102400 /dev/zero | tr '\\0' 'x')
if [ "\${ASK_AT:-0}" = "$n" ]; then printf 'I need a decision.\\n<question>%s</question>\\n' "$q"; exit 0; fi
if [ "\${ASK_FILE_AT:-0}" = "$n" ]; then printf '%s' "$q" > "$WIGGUM_QUESTION"; echo "asked in the file"; exit 0; fi
if [ "$n" -ge "\${ASK_DONE_AT:-1}" ]; then printf 'Done.\\n<promise>COMPLETE</promise>\\n'; else echo "working"; fi
`,
  );
  chmodSync(agent, 0o755);
  return { agent, dir };
}

async function askingVault(agent: string): Promise<TestVault> {
  const harness = (env: Record<string, string>) => ({ kind: 'command', command: agent, env });
  return makeVault({
    config: {
      daemon: { concurrency: 4 },
      // The agent keeps its call counts and the prompts it got beside itself: the test's channel, declared writable.
      sandbox: { writable: [dirname(agent)] },
      harnesses: {
        ask: harness({ ASK_AT: '1', ASK_DONE_AT: '2' }),
        askfile: harness({ ASK_FILE_AT: '1', ASK_DONE_AT: '2' }),
        echoer: harness({ ASK_ECHO: '1' }),
        asknil: harness({ ASK_AT: '1', ASK_Q: 'EMPTY', ASK_DONE_AT: '2' }),
        askbig: harness({ ASK_AT: '1', ASK_Q: 'BIG', ASK_DONE_AT: '2' }),
      },
    },
  });
}

const taskText = (id: string, harness: string): string =>
  `---\ntitle: ${id}\nharness: ${harness}\nmax_iterations: 5\n---\n# ${id}\n\nDo the work of ${id}.\n`;

describe('an agent that asks a person', () => {
  test('ask → Blocked/ with the question; back unanswered it waits; answered it runs with both in its prompt → Done/', async () => {
    const { agent, dir } = scriptedAgent();
    const vault = await askingVault(agent);
    const daemon = DaemonProcess.start(vault.root);
    daemons.push(daemon);
    await daemon.ready();
    vault.task('q1', taskText('q1', 'ask'));

    const blocked = await daemon.waitForEvent('task.blocked', { taskId: 'q1' });
    expect(blocked.iteration).toBe(1);
    const inBlocked = join(vault.layout.blocked, 'q1.md');
    const text = readFileSync(inBlocked, 'utf8');
    expect(text).toContain('Do the work of q1.');
    // The agent's question is fenced in the quote: inert, whatever it holds (task/inert-text.ts).
    expect(text).toMatch(
      /## Question\n\nThe agent asked in iteration 1 [^\n]*\n\n> ```text\n> Which database should q1 use\?\n> ```\n/,
    );
    expect(text).toContain('wiggum answer q1');
    expect(text).toMatch(/^ {2}status: blocked$/m);
    expect(text).toMatch(/^ {2}iteration: 0$/m);
    expect(readFileSync(join(dir, 'q1', 'prompt.1.txt'), 'utf8')).toContain('<question>');
    const asked = historyOf(vault.layout.sessions, 'q1');
    expect(asked.map((r) => [r.outcome, r.action, r.question?.text])).toEqual([
      ['asked', 'block', 'Which database should q1 use?'],
    ]);

    const listed = await runCli(['status', '--vault', vault.root]);
    expect(listed.stdout).toMatch(
      /blocked \(1\): its agent asked a question[^\n]*\n {2}q1: Which database should q1 use\?/,
    );

    // Moved back with no answer: it waits with a message, and the agent is not run.
    const approved = join(vault.layout.approved, 'q1.md');
    renameSync(inBlocked, approved);
    const waiting = await daemon.waitForEvent('task.unanswered', { taskId: 'q1' });
    expect(waiting.msg).toMatch(/no answer yet: write it under ## Answer/);
    // status.json follows the log line: waited for, as a person refreshing would.
    let said = '';
    await waitFor(async () => {
      said = (await runCli(['status', '--vault', vault.root])).stdout;
      return /q1: no answer yet/.test(said);
    }, 'status saying q1 has no answer yet');
    expect(readFileSync(join(dir, 'q1', 'calls'), 'utf8').trim()).toBe('1');

    // Answered in place (in Approved/): it runs on, the prompt holding the question and the answer.
    appendFileSync(approved, '\n## Answer\n\nUse SQLite, in data/app.db.\n');
    await daemon.waitForEvent('task.done', { taskId: 'q1' });
    const prompt2 = readFileSync(join(dir, 'q1', 'prompt.2.txt'), 'utf8');
    expect(prompt2).toContain('Question: Which database should q1 use?');
    expect(prompt2).toContain('Answer: Use SQLite, in data/app.db.');
    expect(prompt2).not.toContain('To answer:');
    expect(prompt2).toMatch(/# Iteration 1 of 5/);
    const done = readFileSync(join(vault.layout.done, 'q1.md'), 'utf8');
    expect(done).toContain('## Answer\n\nUse SQLite, in data/app.db.');
    const history = historyOf(vault.layout.sessions, 'q1');
    expect(history.map((r) => [r.iteration, r.outcome])).toEqual([
      [1, 'asked'],
      [1, 'complete'],
    ]);
    expect(history[1]?.answer).toEqual({
      question: 'Which database should q1 use?',
      text: 'Use SQLite, in data/app.db.',
    });
  });

  test('a question in $WIGGUM_QUESTION, answered with wiggum answer (which moves the file back)', async () => {
    const { agent, dir } = scriptedAgent();
    const vault = await askingVault(agent);
    const daemon = DaemonProcess.start(vault.root);
    daemons.push(daemon);
    await daemon.ready();
    vault.task('qf', taskText('qf', 'askfile'));
    await daemon.waitForEvent('task.blocked', { taskId: 'qf' });
    expect(readFileSync(join(vault.layout.blocked, 'qf.md'), 'utf8')).toContain('> Which database should qf use?');

    const empty = await runCli(['answer', 'qf', '  ', '--vault', vault.root]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/the answer is empty/);
    const answered = await runCli(['answer', 'qf', 'Use Postgres 16.', '--vault', vault.root]);
    expect(answered.code).toBe(0);
    expect(answered.stdout).toMatch(/qf: answered in Blocked\/qf.md → Approved\/qf.md/);
    await daemon.waitForEvent('task.done', { taskId: 'qf' });
    expect(readFileSync(join(dir, 'qf', 'prompt.2.txt'), 'utf8')).toContain('Answer: Use Postgres 16.');
    const again = await runCli(['answer', 'qf', 'more', '--vault', vault.root]);
    expect(again.code).toBe(2);
  });

  test('an echo of the prompt is no question; an empty one is none either; a 100 KB one is cut to 4 KB, said so', async () => {
    const { agent, dir } = scriptedAgent();
    const vault = await askingVault(agent);
    const daemon = DaemonProcess.start(vault.root);
    daemons.push(daemon);
    await daemon.ready();
    vault.task('echo1', taskText('echo1', 'echoer'));
    vault.task('nil1', taskText('nil1', 'asknil'));
    vault.task('big1', taskText('big1', 'askbig'));

    await daemon.waitForEvent('task.done', { taskId: 'echo1' });
    expect(readFileSync(join(dir, 'echo1', 'prompt.1.txt'), 'utf8')).toContain('<question>');

    const empty = await daemon.waitForEvent('iteration.question-empty', { taskId: 'nil1' });
    expect(empty.msg).toMatch(/empty question/);
    await daemon.waitForEvent('task.done', { taskId: 'nil1' });
    expect(historyOf(vault.layout.sessions, 'nil1').map((r) => r.outcome)).toEqual(['continue', 'complete']);

    const big = await daemon.waitForEvent('task.blocked', { taskId: 'big1' });
    expect(big.questionLength).toBe(102_400);
    const text = readFileSync(join(vault.layout.blocked, 'big1.md'), 'utf8');
    expect(text).toMatch(/102400 characters long, longer than the 4096 kept: it was cut to 4096/);
    expect(text.length).toBeLessThan(8000);
    expect(existsSync(join(vault.layout.approved, 'big1.md'))).toBe(false);
  });
});

describe('a crash between the blocked checkpoint and the move', () => {
  test('ends in Blocked/ after the restart, and the agent is not run', async () => {
    const { agent, dir } = scriptedAgent();
    const vault = await askingVault(agent);
    // What a kill -9 right after the checkpoint leaves: the question and `status: blocked` written
    // in Approved/, and the marker of the move under way.
    vault.task(
      'cut1',
      `---\ntitle: cut1\nharness: ask\nstate: Blocked\npersistence_loop:\n  status: blocked\n  iteration: 0\n  max_iterations: 5\n---\n# cut1\n\nDo it.\n\n## Question\n\nThe agent asked in iteration 1 (2025-01-01T00:00:00Z):\n\n> Which one?\n`,
    );
    mkdirSync(vault.layout.taskLocks, { recursive: true });
    writeFileSync(join(vault.layout.taskLocks, 'cut1.ending'), 'blocked\n');
    const daemon = DaemonProcess.start(vault.root);
    daemons.push(daemon);
    await daemon.ready();
    await daemon.waitForEvent('task.move-finished');
    expect(existsSync(join(vault.layout.blocked, 'cut1.md'))).toBe(true);
    expect(existsSync(join(vault.layout.approved, 'cut1.md'))).toBe(false);
    expect(existsSync(join(vault.layout.taskLocks, 'cut1.ending'))).toBe(false);
    expect(existsSync(join(dir, 'cut1', 'calls'))).toBe(false);
  });
});
