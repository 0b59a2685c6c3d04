#!/usr/bin/env node
// Makes sure `redis-server` is on PATH: the queue tests start a real one on a random loopback port
// (test/helpers/redis.ts), and CI runs on a fresh Debian machine that has only what the project's own
// files install. Where it is missing and this process may install packages (root, or sudo without a
// password), it installs Debian's `redis-server` package; otherwise it says what to run and fails.
// Quiet and quick when redis-server is already there. `npm test` runs it before vitest;
// `npm run install:redis-server` runs it alone.
import { spawnSync } from 'node:child_process';

/** The path of `redis-server` on PATH, or null. */
function findRedisServer() {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
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
    `redis: redis-server is not installed and ${why}. ` +
      "The queue tests need it: install Debian's package as root (apt-get install -y redis-server), " +
      'or put any redis-server 7 on PATH, then run npm run install:redis-server again.',
  );
  process.exit(1);
}

const present = findRedisServer();
if (present !== null) {
  // Silent on purpose: this runs before every `npm test`.
  process.exit(0);
}
const prefix = rootPrefix();
if (prefix === null)
  cannot('this process may not install packages (not root, and sudo asks for a password or is missing)');
if (!hasAptGet()) cannot('this machine has no apt-get (not Debian or Ubuntu)');
console.log("redis: installing Debian's redis-server package (apt-get), which the queue tests start");
run(prefix, ['apt-get', 'update', '-qq']);
run(prefix, ['apt-get', 'install', '-y', '-qq', '--no-install-recommends', 'redis-server']);
// Debian's package starts a system-wide redis-server on port 6379 where systemd runs; the tests start
// their own on random ports and never use it, so it is left as the package set it up.
const installed = findRedisServer();
if (installed === null) cannot('apt-get finished but redis-server is still not on PATH');
console.log(`redis: installed ${installed}`);
