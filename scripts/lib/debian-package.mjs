// Makes sure a program from a Debian package is on PATH, for the tests that run it for real. CI runs
// on a fresh Debian machine that has only what the project's own files install: where the program is
// missing and this process may install packages (root, or sudo without a password), the package is
// installed with apt-get; otherwise it says what to run and exits 1. Silent and quick when the program
// is already there, since this runs before every `npm test`.
import { spawnSync } from 'node:child_process';

/** The path of `binary` on PATH, or null. */
function findOnPath(binary) {
  const found = spawnSync('sh', ['-c', `command -v ${binary}`], { encoding: 'utf8' });
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

/**
 * @param {object} wanted
 * @param {string} wanted.label   prefix of every line printed ("redis")
 * @param {string} wanted.binary  the program that must be on PATH ("redis-server")
 * @param {string} wanted.pkg     Debian's package that has it
 * @param {string} wanted.usedBy  who needs it, for the messages ("the queue tests")
 * @param {string} wanted.orElse  the other way to get it ("put any redis-server 7 on PATH")
 * @param {string} wanted.npmScript  the npm script that runs this check alone
 */
export function ensureDebianPackage({ label, binary, pkg, usedBy, orElse, npmScript }) {
  const cannot = (why) => {
    console.error(
      `${label}: ${binary} is not installed and ${why}. ` +
        `${usedBy.charAt(0).toUpperCase()}${usedBy.slice(1)} need it: install Debian's package as root (apt-get install -y ${pkg}), ` +
        `or ${orElse}, then run npm run ${npmScript} again.`,
    );
    process.exit(1);
  };
  const run = (prefix, args) => {
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
  };

  if (findOnPath(binary) !== null) return;
  const prefix = rootPrefix();
  if (prefix === null)
    cannot('this process may not install packages (not root, and sudo asks for a password or is missing)');
  if (!hasAptGet()) cannot('this machine has no apt-get (not Debian or Ubuntu)');
  console.log(`${label}: installing Debian's ${pkg} package (apt-get), which ${usedBy} use`);
  run(prefix, ['apt-get', 'update', '-qq']);
  run(prefix, ['apt-get', 'install', '-y', '-qq', '--no-install-recommends', pkg]);
  const installed = findOnPath(binary);
  if (installed === null) cannot(`apt-get finished but ${binary} is still not on PATH`);
  console.log(`${label}: installed ${installed}`);
}
