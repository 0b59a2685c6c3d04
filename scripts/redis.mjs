#!/usr/bin/env node
// Makes sure `redis-server` is on PATH: the queue tests start a real one on a random loopback port
// (test/helpers/redis.ts). `npm test` runs it before vitest; `npm run install:redis-server` runs it
// alone. Debian's package starts a system-wide redis-server on port 6379 where systemd runs; the tests
// start their own on random ports and never use it, so it is left as the package set it up.
import { ensureDebianPackage } from './lib/debian-package.mjs';

ensureDebianPackage({
  label: 'redis',
  binary: 'redis-server',
  pkg: 'redis-server',
  usedBy: 'the queue tests',
  orElse: 'put any redis-server 7 on PATH',
  npmScript: 'install:redis-server',
});
