import { linkSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';
import { linkRefusalText } from '../../src/vault/links.js';

function vault(): string {
  const root = tempDir();
  for (const folder of ['Approved', 'Done', 'Rejected']) mkdirSync(join(root, folder));
  return root;
}

const aliasBomb = (() => {
  let yaml = 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n';
  for (let i = 1; i < 10; i += 1)
    yaml += `a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]\n`;
  return `---\n${yaml}---\n`;
})();

const badInputs: [string, string | Buffer, RegExp][] = [
  ['over 1 MiB', Buffer.alloc(1024 * 1024 + 10, 'x'), /:1:1: the file is 1048586 bytes, over the 1 MiB limit/],
  ['binary', Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0x00, 0xff]), /:1:1: the file is binary/],
  ['not UTF-8', Buffer.from('---\ntitle: \xff\xfe\n---\n', 'latin1'), /:1:1: the file is not valid UTF-8/],
  [
    '---js',
    "---js\nrequire('child_process').execSync('touch /tmp/x')\n---\n",
    /:1:4: frontmatter language "js" is not supported/,
  ],
  ['---toml', '---toml\ntitle = "x"\n---\n', /:1:4: frontmatter language "toml" is not supported/],
  ['alias bomb', aliasBomb, /:\d+:\d+: more than 8 YAML aliases/],
  [
    'deep nesting',
    `---\nx: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n---\n`,
    /:2:\d+: YAML nests deeper than 32 levels/,
  ],
  ['duplicate keys', '---\ntitle: a\ntitle: b\n---\n', /:3:1: duplicate key "title"/],
  ['__proto__', '---\n__proto__: {admin: true}\n---\n', /:2:1: __proto__: the key "__proto__" is not allowed/],
  ['merge key', '---\nbase: &b {a: 1}\nx:\n  <<: *b\n---\n', /:4:3: x.<<: YAML merge keys \(<<\) are not supported/],
  ['bad id', '---\nid: ../../etc/passwd\n---\n', /:2:5: id: an id must start with a letter or digit/],
  [
    'depends_on naming the task itself',
    '---\nharness: demo\ndepends_on: [task]\n---\n',
    /:3:13: depends_on: names this task itself \(task\)/,
  ],
  [
    'a not_before that does not parse',
    '---\nharness: demo\nnot_before: next tuesday-ish\n---\n',
    /:3:13: not_before: not_before is not a date-time wiggum can read/,
  ],
  [
    'unknown harness',
    '---\nharness: skynet\n---\n',
    /:2:1: harness: unknown harness "skynet": the configured harnesses are demo, claude/,
  ],
  [
    'workdir outside the allowed roots',
    '---\nworkdir: /etc\n---\n',
    /:2:1: workdir: workdir \/etc is outside the allowed folders/,
  ],
  ['missing workdir', '---\nworkdir: ./nowhere\n---\n', /:2:1: workdir: workdir .*nowhere does not exist/],
  [
    'unknown verify check',
    '---\nverify: tests\n---\n',
    /:2:1: verify: unknown check "tests": no checks are configured/,
  ],
];

describe('wiggum validate', () => {
  test.each(badInputs)('%s: names the file and the problem, exits 2', async (_name, content, expected) => {
    const root = vault();
    const file = join(root, 'Approved', 'task.md');
    writeFileSync(file, content);
    const result = await runCli(['validate', file]);
    expect(result.code).toBe(2);
    expect(result.stdout.startsWith(`${file}:`)).toBe(true);
    expect(result.stdout).toMatch(expected);
  });

  test('with no file, checks every task in Approved/ and the config', async () => {
    const root = vault();
    writeFileSync(join(root, 'Approved', 'good.md'), '---\ntitle: fine\nharness: demo\n---\nbody\n');
    writeFileSync(join(root, 'Approved', 'bad.md'), '---\nmax_iterations: 0\nharness: demo\n---\n');
    writeFileSync(join(root, 'Approved', 'notes.txt'), 'not a task');
    const result = await runCli(['validate', '--vault', root]);
    expect(result.code).toBe(2);
    expect(result.stdout.trim().split('\n')).toEqual([
      `${join(root, 'Approved', 'bad.md')}:2:17: max_iterations: Too small: expected number to be >=1`,
    ]);
  });

  test('a task naming no harness (no default configured) and an empty file are problems that say what to do', async () => {
    const root = vault();
    writeFileSync(join(root, 'Approved', 'noh.md'), '---\ntitle: noh\n---\nbody\n');
    writeFileSync(join(root, 'Approved', 'plain.md'), 'just a note\n');
    writeFileSync(join(root, 'Approved', 'blank.md'), '  \n');
    const result = await runCli(['validate', '--vault', root]);
    expect(result.code).toBe(2);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(
      `${join(root, 'Approved', 'blank.md')}:1:1: empty: not a task, and never run until something is written in it`,
    );
    for (const [i, name] of [
      [1, 'noh.md'],
      [2, 'plain.md'],
    ] as const) {
      expect(lines[i]).toContain(join(root, 'Approved', name));
      expect(lines[i]).toMatch(/names no harness .*`harness: NAME`.*harness\.default in \.wiggum\/config\.yaml/);
    }
  });

  test('a symlinked task in Approved/ is a problem naming it; editor backups are not looked at', async () => {
    const root = vault();
    const outside = join(root, 'elsewhere.md');
    writeFileSync(outside, '---\ntitle: fine\n---\nbody\n');
    symlinkSync(outside, join(root, 'Approved', 'link.md'));
    writeFileSync(join(root, 'Approved', 'good.md~'), 'not: [valid');
    const result = await runCli(['validate', '--vault', root]);
    expect(result.code).toBe(2);
    expect(result.stdout.trim().split('\n')).toEqual([
      `${join(root, 'Approved', 'link.md')}:1:1: ${linkRefusalText('symlink')}`,
    ]);
  });

  test('a hard-linked task in Approved/ is a problem naming it, as the daemon and run refuse it', async () => {
    const root = vault();
    const outside = join(root, 'elsewhere.md');
    writeFileSync(outside, '---\ntitle: fine\nharness: demo\n---\nbody\n');
    linkSync(outside, join(root, 'Approved', 'twin.md'));
    const result = await runCli(['validate', '--vault', root]);
    expect(result.code).toBe(2);
    expect(result.stdout.trim().split('\n')).toEqual([
      `${join(root, 'Approved', 'twin.md')}:1:1: ${linkRefusalText('hard-link')}`,
    ]);
  });

  test('a bad vault config is reported at its line and column', async () => {
    const root = vault();
    mkdirSync(join(root, '.wiggum'));
    writeFileSync(join(root, '.wiggum', 'config.yaml'), 'daemon:\n  concurrency: many\n');
    const result = await runCli(['validate', '--vault', root]);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain(`${join(root, '.wiggum', 'config.yaml')}:2:16: daemon.concurrency:`);
  });

  test('one pass reports every problem: an unknown harness.default beside a schema error, and the tasks too', async () => {
    const root = vault();
    mkdirSync(join(root, '.wiggum'));
    const config = join(root, '.wiggum', 'config.yaml');
    writeFileSync(config, 'harness:\n  default: nosuchharness\npersistence_loop:\n  max_iterations: 0\n');
    writeFileSync(join(root, 'Approved', 'bad.md'), '---\ntitle: a\ntitle: b\n---\n');
    writeFileSync(join(root, 'Approved', 'fine.md'), '---\nharness: mine\n---\nbody\n');
    const result = await runCli(['validate', '--vault', root]);
    expect(result.code).toBe(2);
    expect(result.stdout.trim().split('\n')).toEqual([
      `${config}:2:12: harness.default: no harness named "nosuchharness" is defined under harnesses`,
      `${config}:4:19: persistence_loop.max_iterations: Too small: expected number to be >=1`,
      // What needs the config (harness "mine") waits until the config reads; the file's own problem does not.
      `${join(root, 'Approved', 'bad.md')}:3:1: duplicate key "title": each key may appear once`,
    ]);
    expect(result.stderr).toContain('3 problems found');
  });

  test("a prd: file that does not exist is a problem naming it; a relative one is read from the task file's folder", async () => {
    const root = vault();
    mkdirSync(join(root, 'specs'));
    mkdirSync(join(root, 'code'));
    writeFileSync(join(root, 'specs', 'feature.json'), '{"userStories":[]}');
    writeFileSync(join(root, 'code', 'here.json'), '{"userStories":[]}');
    const missing = join(root, 'Approved', 'missing.md');
    writeFileSync(missing, '---\nharness: demo\nprd: no-such-prd.json\n---\nbody\n');
    const relative = join(root, 'Approved', 'relative.md');
    writeFileSync(
      relative,
      `---\nharness: demo\nworkdir: ${join(root, 'code')}\nprd: ../specs/feature.json\n---\nbody\n`,
    );
    const old = join(root, 'Approved', 'old.md');
    writeFileSync(old, `---\nharness: demo\nworkdir: ${join(root, 'code')}\nprd: here.json\n---\nbody\n`);

    const bad = await runCli(['validate', missing]);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toContain(
      `${missing}:3:1: prd: no-such-prd.json does not exist (looked for ${join(root, 'Approved', 'no-such-prd.json')})`,
    );
    expect((await runCli(['validate', relative])).code).toBe(0);
    // Read from the workdir before: the message gives the path to write instead.
    const moved = await runCli(['validate', old]);
    expect(moved.code).toBe(2);
    expect(moved.stdout).toContain(
      `it exists relative to the workdir, at ${join(root, 'code', 'here.json')}: write that path in prd:`,
    );
  });

  test('a prd: outside the vault and the workdir is refused, a symlink or ../ leading out included, and nothing of it is quoted', async () => {
    const root = vault();
    const elsewhere = tempDir();
    const code = tempDir();
    mkdirSync(join(root, '.wiggum'));
    writeFileSync(join(root, '.wiggum', 'config.yaml'), `vault:\n  allowed_workdirs: [${code}]\n`);
    writeFileSync(join(elsewhere, 'private.json'), '{"userStories":[{"id":"PRIVATE-BYTES-1"}]}');
    writeFileSync(join(code, 'spec.json'), '{"userStories":[]}');
    mkdirSync(join(root, 'specs'));
    symlinkSync(join(elsewhere, 'private.json'), join(root, 'specs', 'link.json'));
    const up = '../'.repeat(root.split('/').length + 2);
    const cases: [string, string, boolean][] = [
      ['absolute', join(elsewhere, 'private.json'), false],
      ['relative', `${up}${join(elsewhere, 'private.json').slice(1)}`, false],
      ['symlink', '../specs/link.json', false],
      ['passwd', '/etc/passwd', false],
      ['workdir', join(code, 'spec.json'), true],
    ];
    for (const [name, prd, ok] of cases) {
      const file = join(root, 'Approved', `${name}.md`);
      writeFileSync(file, `---\nharness: demo\nworkdir: ${code}\nprd: ${prd}\n---\nbody\n`);
      const result = await runCli(['validate', '--vault', root, file]);
      expect([name, result.code]).toEqual([name, ok ? 0 : 2]);
      if (!ok) expect(result.stdout).toContain(`${file}:4:1: prd: ${prd} is outside the vault and the task's workdir`);
      expect(result.stdout + result.stderr).not.toMatch(/PRIVATE-BYTES|root:/);
    }
  });

  test('the example vault is clean, and its deliberately invalid draft is not', async () => {
    const example = join(REPO_ROOT, 'vault-example');
    expect((await runCli(['validate', '--vault', example])).code).toBe(0);
    const draft = await runCli(['validate', join(example, 'Drafts', 'invalid-task.md')]);
    expect(draft.code).toBe(2);
    expect(draft.stdout.trim().split('\n')).toHaveLength(3);
  });
});
