import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { REPO_ROOT, requireBuild } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';
import { NO_TOTAL_BUDGET, waitFor } from '../helpers/wait.js';

/**
 * `npm start` is `npm run build && node scripts/demo.mjs`: these run the wrapper itself, in a copy
 * of the repository's parts it uses (the built dist/ is linked, vault-example/ copied), so that the
 * checkout's own .demo/ is never touched. The wrapper runs in a process group of its own, as a
 * terminal's foreground job does, and a Ctrl-C is a SIGINT to that whole group.
 */
function demoCopy(): string {
  requireBuild();
  const root = tempDir('wiggum-demo-');
  mkdirSync(join(root, 'scripts'));
  cpSync(join(REPO_ROOT, 'scripts', 'demo.mjs'), join(root, 'scripts', 'demo.mjs'));
  cpSync(join(REPO_ROOT, 'vault-example'), join(root, 'vault-example'), { recursive: true });
  symlinkSync(join(REPO_ROOT, 'dist'), join(root, 'dist'));
  return root;
}

function startDemo(root: string) {
  const child = spawn(process.execPath, ['scripts/demo.mjs'], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, JOURNAL_STREAM: '' },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

const tasks = (folder: string): string[] => readdirSync(folder).filter((name) => name.endsWith('.md'));

/** Every file under `dir` whose path matches `pattern`. */
function filesUnder(dir: string, pattern: RegExp): string[] {
  try {
    return (readdirSync(dir, { recursive: true }) as string[]).filter((path) => pattern.test(path));
  } catch {
    return [];
  }
}

describe('npm start (scripts/demo.mjs)', () => {
  test(
    'runs the demo vault to its end, says what went where and which files to open, exits 0',
    { timeout: NO_TOTAL_BUDGET },
    async () => {
      const root = demoCopy();
      const demo = startDemo(root);
      expect(await demo.exited).toBe(0);
      const vault = join(root, '.demo', 'vault');
      expect(tasks(join(vault, 'Done')).sort()).toEqual(['add-dark-mode.md', 'write-release-notes.md']);
      expect(tasks(join(vault, 'Rejected'))).toEqual(['migrate-billing-db.md']);
      const tail = demo.output().slice(demo.output().indexOf('wiggum demo: every task ran to its end'));
      expect(tail.split('\n').slice(0, 10)).toEqual([
        'wiggum demo: every task ran to its end; nothing is left in Approved/.',
        '  2 tasks went to Done/:',
        '    .demo/vault/Done/add-dark-mode.md',
        '    .demo/vault/Done/write-release-notes.md',
        '  1 task went to Rejected/ (each file ends with a report of why):',
        '    .demo/vault/Rejected/migrate-billing-db.md',
        '  the overview: .demo/vault/Dashboard.md',
        'The demo has exited. To watch the vault again (and drop tasks into Approved/):',
        '  node dist/cli/main.js start --vault .demo/vault',
        '',
      ]);
    },
  );

  test(
    'one Ctrl-C while agents run (SIGINT to the process group, and once more from npm) drains: exit 0, tasks checkpointed interrupted',
    { timeout: NO_TOTAL_BUDGET },
    async () => {
      const root = demoCopy();
      const vault = join(root, '.demo', 'vault');
      const demo = startDemo(root);
      await waitFor(() => filesUnder(join(vault, '.wiggum'), /\/logs\/.*\.log$/).length > 0, 'an agent to be running');
      const pid = demo.child.pid ?? 0;
      process.kill(-pid, 'SIGINT'); // the terminal's Ctrl-C, to the whole foreground group
      process.kill(pid, 'SIGINT'); // npm passes the same Ctrl-C on to its script
      expect(await demo.exited).toBe(0);
      expect(demo.output()).not.toContain('exiting at once');
      expect(demo.output()).not.toContain('drain grace');
      expect(demo.output()).toMatch(/wiggum demo: stopped; \d tasks? left in Approved\//);
      const left = tasks(join(vault, 'Approved')).map((name) => readFileSync(join(vault, 'Approved', name), 'utf8'));
      expect(left.length).toBeGreaterThan(0);
      for (const text of left) expect(text).not.toMatch(/^\s+status: running/m);
      expect(left.some((text) => /^\s+status: interrupted/m.test(text))).toBe(true);
    },
  );
});
