#!/usr/bin/env node
// Makes sure Debian's `chromium` is on PATH: the web page's tests (test/http/page.test.ts) drive a real
// headless Chromium through playwright-core, which downloads no browser of its own, and CI runs on a
// fresh Debian machine that has only what the project's own files install. Where it is missing and
// this process may install packages (root, or sudo without a password), it installs Debian's
// `chromium` package; otherwise it says what to run and fails. Quiet and quick when chromium is
// already there. `npm run install:chromium` runs it.
import { spawnSync } from 'node:child_process';

/** The path of `chromium` on PATH, or null. */
function findChromium() {
  const found = spawnSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' });
  const path = found.status === 0 ? found.stdout.trim() : '';
  return path === '' ? null : path;
}

/** How to run a command as root here: directly, through `sudo -n`, or not at all (null). */
function rootPrefix() {
  if (typeof process.getuid === 'function' && process.getuid() === 0) return [];
  const sudo = spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' });
  return sudo.status === 0 ? ['sudo', '-n'] : null;
}

const hasAptGet = () => spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0;

function run(prefix, args) {
  const [command, ...rest] = [...prefix, ...args];
  const result = spawnSync(command, rest, {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (result.status !== 0) {
    cannot(
      `\`${[...prefix, ...args].join(' ')}\` failed (exit ${result.status ?? result.signal}); fix what it printed above`,
    );
  }
}

function cannot(why) {
  console.error(
    `chromium: chromium is not installed and ${why}. ` +
      "The web page's tests need it: install Debian's package as root (apt-get install -y chromium), " +
      'or put a Chromium or Chrome build named chromium on PATH, then run npm run install:chromium again.',
  );
  process.exit(1);
}

const present = findChromium();
if (present !== null) {
  // Silent on purpose: this may run before every test run.
  process.exit(0);
}
const prefix = rootPrefix();
if (prefix === null)
  cannot('this process may not install packages (not root, and sudo asks for a password or is missing)');
if (!hasAptGet()) cannot('this machine has no apt-get (not Debian or Ubuntu)');
console.log("chromium: installing Debian's chromium package (apt-get), which the web page's tests drive");
run(prefix, ['apt-get', 'update', '-qq']);
run(prefix, ['apt-get', 'install', '-y', '-qq', '--no-install-recommends', 'chromium']);
const installed = findChromium();
if (installed === null) cannot('apt-get finished but chromium is still not on PATH');
console.log(`chromium: installed ${installed}`);
