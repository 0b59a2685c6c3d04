// Loaded with `node --import` into the one profiled `wiggum run` of the naive phase: counts the
// fsyncs and fdatasyncs the process makes and how long each took (call to completion, as the
// caller waits for it), and writes {count, totalMs} to $WIGGUM_BENCH_FSYNC_OUT at exit.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const out = process.env.WIGGUM_BENCH_FSYNC_OUT;
const tally = { count: 0, totalMs: 0 };
const took = (start) => {
  tally.count += 1;
  tally.totalMs += performance.now() - start;
};

for (const name of ['fsync', 'fdatasync']) {
  const callback = fs[name];
  fs[name] = function (fd, done) {
    const start = performance.now();
    return callback.call(this, fd, (...args) => {
      took(start);
      done(...args);
    });
  };
  const sync = fs[`${name}Sync`];
  fs[`${name}Sync`] = function (fd) {
    const start = performance.now();
    try {
      return sync.call(this, fd);
    } finally {
      took(start);
    }
  };
}
// FileHandle.sync/datasync (fs.promises) do not go through fs.fsync: wrapped on the class.
const handle = await fs.promises.open(process.execPath, 'r');
const FileHandle = Object.getPrototypeOf(handle);
await handle.close();
for (const name of ['sync', 'datasync']) {
  const real = FileHandle[name];
  FileHandle[name] = async function () {
    const start = performance.now();
    try {
      return await real.call(this);
    } finally {
      took(start);
    }
  };
}
syncBuiltinESMExports();
if (out !== undefined) process.on('exit', () => fs.writeFileSync(out, JSON.stringify(tally)));
