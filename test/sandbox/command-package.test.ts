import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { commandPackage, outermostNodeModules } from '../../src/sandbox/command-package.js';
import { tempDir } from '../helpers/temp-dir.js';

describe("the folder of an agent command's package", () => {
  test.each([
    [
      'npm -g (a prefix in the home)',
      '/home/u/.npm/lib/node_modules/wiggum/dist/demo/agent.js',
      '/home/u/.npm/lib/node_modules',
    ],
    ['a dependency of a dependency', '/p/node_modules/a/node_modules/b/cli.js', '/p/node_modules'],
    [
      "pnpm's store",
      '/h/pnpm/global/5/node_modules/.pnpm/x@1/node_modules/x/bin/x.js',
      '/h/pnpm/global/5/node_modules',
    ],
    ['none', '/usr/bin/claude', null],
  ])('installed: %s', (_, path, expected) => expect(outermostNodeModules(path)).toBe(expected));

  test('a checkout: the nearest folder above the command with a package.json; none: null', async () => {
    const root = tempDir('wiggum-package-');
    mkdirSync(join(root, 'checkout', 'dist', 'demo'), { recursive: true });
    writeFileSync(join(root, 'checkout', 'package.json'), '{}');
    writeFileSync(join(root, 'checkout', 'dist', 'demo', 'agent.js'), '');
    mkdirSync(join(root, 'loose'));
    writeFileSync(join(root, 'loose', 'agent.sh'), '');

    expect(await commandPackage(join(root, 'checkout', 'dist', 'demo', 'agent.js'))).toBe(join(root, 'checkout'));
    expect(await commandPackage(join(root, 'loose', 'agent.sh'))).toBe(null);
    expect(await commandPackage('/x/node_modules/y/bin/y.js')).toBe('/x/node_modules');
  });
});
