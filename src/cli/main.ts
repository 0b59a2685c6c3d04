#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=4 --heap-growing-percent=50
// (glibc's default of one malloc arena per thread let the daemon's RSS grow to 170 MB while 1,000
// tasks ran; two arenas kept it near 120 MB. V8's young generation, 16 MB per semi-space by
// default, held another 14 MB idle and 20 MB under a burst: 4 MB brought the daemon over 10,000
// tasks from 116 to 102 MB idle and its burst peak from 166 to 144 MB. V8 lets the old generation
// grow up to 4 times what survived a full collection before the next one: with about 22 MB live
// in a burst of 1,000 tasks the heap reached 75 MB between collections; 1.5 times keeps the burst's
// peak near 100 MB at the same CPU per task: docs/performance.md, docs/decisions.md.)
import { readFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { HARNESS_HELP } from './harness-help.js';
import type { InitOptions } from './init.js';
import type { LogsOptions } from './logs.js';
import type { VaultOptions } from './open-vault.js';
import type { RalphOptions } from './ralph.js';
import type { RunOptions } from './run.js';
import type { StartOptions } from './start.js';
import type { StatsOptions } from './stats.js';
import type { WorkerOptions } from './worker.js';
import { WiggumError } from '../errors.js';
import { LOG_LEVELS, isLogLevel } from '../log/levels.js';
import type { LogLevel } from '../log/levels.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import type { ExitCode } from './exit-codes.js';

/**
 * argv → options → a command; the commands hold no argument parsing and this file no logic.
 * Each command is imported only when it runs, so `wiggum status` does not pay for the daemon.
 */
function buildProgram(setExit: (code: ExitCode) => void): Command {
  const program = new Command('wiggum')
    .description('Drives Markdown tasks in a vault through a bounded, crash-safe agent persistence loop.')
    .version(packageVersion(), '-v, --version', 'print the version')
    // -V printed the version before -v did (commander's default); it still does, unlisted.
    .addOption(new Option('-V').hideHelp())
    .on('option:V', () => {
      process.stdout.write(`${packageVersion()}\n`);
      throw new CommanderError(0, 'commander.version', packageVersion());
    })
    .showHelpAfterError('(run wiggum --help for usage)')
    .exitOverride();

  program
    .command('validate')
    .description('check the configuration and task files; with no FILE, every task in Approved/')
    .argument('[files...]', 'task files to check')
    .option('--vault <dir>', 'the vault (default: found from the files, or the current folder)')
    .option('--config <file>', 'a config file merged over the vault config')
    .action(async (files: string[], options: { vault?: string; config?: string }) => {
      const { validateCommand } = await import('./validate.js');
      setExit(await validateCommand(files, options));
    });

  program
    .command('run')
    .description('run one task through the loop in the foreground, exactly as the daemon would')
    .argument('<file>', 'the task file (a path; or its name or id, looked up in the vault)')
    .addHelpText('after', RUN_ENDED_HELP)
    .option('--harness <name>', "a harness from the config, instead of the task's")
    .option('--max-iterations <n>', 'bound on iterations', positiveInt)
    .option('--completion-promise <text>', 'the TEXT of <promise>TEXT</promise>')
    .option('--no-stream', 'do not show the harness output live (it is still captured)')
    .option('--fail-fast', 'stop at the first harness failure')
    .option('--vault <dir>', 'the vault (default: found from the file)')
    .option('--config <file>', 'a config file merged over the vault config')
    .option('--log-level <level>', `one of ${LOG_LEVELS.join(', ')}`, logLevel)
    .action(async (file: string, options: RunOptions) => {
      const { runCommand } = await import('./run.js');
      setExit(await runCommand(file, options));
    });

  program
    .command('start')
    .description('the daemon: watch the vault and run every task that appears in Approved/ (foreground)')
    .option('--vault <dir>', 'the vault (default: the current folder)')
    .option('--config <file>', 'a config file merged over the vault config')
    .option('--concurrency <n>', 'tasks run at the same time', positiveInt)
    .option('--log-level <level>', `one of ${LOG_LEVELS.join(', ')}`, logLevel)
    .option('--exit-when-idle', 'drain and exit once nothing is left to run (for demos and scripts)')
    .option('--queue <url>', 'run tasks on `wiggum worker` processes through this Redis: redis://HOST:PORT')
    .action(async (options: StartOptions) => {
      const { startCommand } = await import('./start.js');
      setExit(await startCommand(options));
    });

  program
    .command('worker')
    .description("take task runs from a vault host's queue (wiggum start --queue) and run them on this machine")
    .option(
      '--queue <url>',
      'the Redis queue the vault host uses: redis://HOST:PORT (default: queue.url in the config)',
    )
    .option('--concurrency <n>', 'task runs at the same time (default 1)', positiveInt)
    .option('--harnesses <names>', 'run only tasks on these harnesses (comma-separated; default: any)')
    .option('--config <file>', 'a config file merged over .wiggum/config.yaml in the current folder')
    .option('--log-level <level>', `one of ${LOG_LEVELS.join(', ')}`, logLevel)
    .action(async (options: WorkerOptions) => {
      const { workerCommand } = await import('./worker.js');
      setExit(await workerCommand(options));
    });

  program
    .command('ralph')
    .description(
      'one loop in the current repository (its top, from any subfolder), without a vault; state in .wiggum/sessions/<change>/',
    )
    .argument('[prompt]', 'what to do (or --prompt-file); omitted, the loop of --change resumes')
    .option('--change <id>', 'the change: names the loop and its memory (required but with --list)')
    .option('--list', 'list the loops with their state, then exit (so does --status without --change)')
    .option('--prompt-file <file>', 'read the prompt from a file')
    .option('--harness <name>', 'a harness from the config')
    .option('--max-iterations <n>', 'bound on iterations', positiveInt)
    .option('--completion-promise <text>', 'the TEXT of <promise>TEXT</promise>')
    .option('--no-stream', 'do not show the harness output live (it is still captured)')
    .option('--fail-fast', 'stop at the first harness failure, with a failing exit code')
    .option('--add-context <text>', 'append guidance for the next iteration, then exit')
    .option('--clear-context', 'empty the guidance, then exit')
    .option('--status', 'show the iteration count and recent outcomes, then exit')
    .option('--json', 'with --status or --list: machine-readable output')
    .option('--config <file>', 'a config file merged over .wiggum/config.yaml')
    .option('--log-level <level>', `one of ${LOG_LEVELS.join(', ')}`, logLevel)
    .action(async (prompt: string | undefined, options: RalphOptions) => {
      const { ralphCommand } = await import('./ralph.js');
      setExit(await ralphCommand(prompt, options));
    });

  const vaultOptions = (command: Command): Command =>
    command
      .option('--vault <dir>', 'the vault (default: the current folder)')
      .option('--config <file>', 'a config file merged over the vault config');

  vaultOptions(
    program
      .command('status')
      .description('counts per folder, running, queued and stopped tasks; with ID, one task and its recent iterations'),
  )
    .argument('[id]', TASK_REF)
    .option('--json', 'machine-readable output')
    .option('--all', 'list every task (by default a long group shows its first few and a count)')
    .option('--watch', 'a live view of the vault, drawn again every second (as wiggum top); Ctrl-C ends it')
    .action(
      async (id: string | undefined, options: VaultOptions & { json?: boolean; watch?: boolean; all?: boolean }) => {
        const { statusCommand } = await import('./status.js');
        setExit(await statusCommand(id, options));
      },
    );

  vaultOptions(
    program
      .command('stats')
      .description(
        'how well the loop works: tasks finished and rejected, success rate, time to Done/, iterations, tokens and cost per finished task, refused claims, retries, usage-limit waits; overall and per harness',
      ),
  )
    .option('--since <duration>', 'only tasks that ended in this last span: 7d, 24h, 30m')
    .option('--json', 'machine-readable output')
    .action(async (options: StatsOptions) => {
      const { statsCommand } = await import('./stats.js');
      setExit(await statsCommand(options));
    });

  vaultOptions(
    program.command('logs').description("a task's agent output, every iteration in order, rendered as run shows it"),
  )
    .argument('<id>', TASK_REF)
    .option('--follow', 'keep reading as the task runs, into its next iterations, until it ends')
    .option('--raw', 'the raw stream as the agent wrote it (JSON lines for structured agents)')
    .action(async (id: string, options: LogsOptions) => {
      const { logsCommand } = await import('./logs.js');
      setExit(await logsCommand(id, options));
    });

  vaultOptions(
    program
      .command('top')
      .description(
        "a live view of every task: iteration, time, tokens and cost, its agent's last event (as status --watch)",
      ),
  ).action(async (options: VaultOptions) => {
    const { watchCommand } = await import('./watch.js');
    setExit(await watchCommand(options));
  });

  vaultOptions(
    program
      .command('http-token')
      .description("the HTTP API's bearer token (daemon.http), printed for curl, Prometheus or the web page's URL"),
  )
    .option('--rotate', 'replace it: a running daemon refuses the old one within a second')
    .action(async (options: VaultOptions & { rotate?: boolean }) => {
      const { httpTokenCommand } = await import('./http-token.js');
      setExit(await httpTokenCommand(options));
    });

  vaultOptions(program.command('stop').description('stop a task now: writes Approved/<name>.stop'))
    .argument('<id>', TASK_REF)
    .action(async (id: string, options: VaultOptions) => {
      const { stopCommand } = await import('./manage.js');
      setExit(await stopCommand(id, options));
    });

  vaultOptions(program.command('resume').description('remove the stop flag: the task continues from its checkpoint'))
    .argument('<id>', TASK_REF)
    .action(async (id: string, options: VaultOptions) => {
      const { resumeCommand } = await import('./manage.js');
      setExit(await resumeCommand(id, options));
    });

  vaultOptions(
    program
      .command('retry')
      .description('send a Rejected or Done task back to Approved, keeping its memory (or --fresh)'),
  )
    .argument('<id>', TASK_REF)
    .option('--fresh', 'archive its memory and start over')
    .action(async (id: string, options: VaultOptions & { fresh?: boolean }) => {
      const { retryCommand } = await import('./manage.js');
      setExit(await retryCommand(id, options));
    });

  vaultOptions(program.command('approve').description('approve a task waiting for review: Review → Done'))
    .argument('<id>', TASK_REF)
    .action(async (id: string, options: VaultOptions) => {
      const { approveCommand } = await import('./review.js');
      setExit(await approveCommand(id, options));
    });

  vaultOptions(
    program
      .command('request-changes')
      .description('send a task waiting for review back to the loop with a change request: Review → Approved'),
  )
    .argument('<id>', TASK_REF)
    .argument('<text>', 'what to change; written under "## Changes requested" in the task, and so in every prompt')
    .action(async (id: string, text: string, options: VaultOptions) => {
      const { requestChangesCommand } = await import('./review.js');
      setExit(await requestChangesCommand(id, text, options));
    });

  vaultOptions(
    program
      .command('answer')
      .description("answer a blocked task's question: writes it under ## Answer and moves the file back to Approved/"),
  )
    .argument('<id>', TASK_REF)
    .argument('<text>', 'the answer')
    .addHelpText(
      'after',
      '\nThe task is in Blocked/ (or was moved back to Approved/ without an answer). The answer is appended under\n## Answer and the file moved back to Approved/: the daemon runs it on with the question and the answer\nin its prompt. By hand: write under ## Answer at the end of the file, then move it to Approved/.',
    )
    .action(async (id: string, text: string, options: VaultOptions) => {
      const { answerCommand } = await import('./answer.js');
      setExit(await answerCommand(id, text, options));
    });

  vaultOptions(
    program
      .command('doctor')
      .description(
        'check what a first run needs (config, agent commands and keys, vault, inotify, git, disk, Node) and say what to fix',
      ),
  )
    .option('--json', 'machine-readable output')
    .addHelpText(
      'after',
      '\nOne ok / warn / FAIL line per check, each FAIL with its fix. Exit 1: something must be fixed; warnings alone exit 0.',
    )
    .action(async (options: VaultOptions & { json?: boolean }) => {
      const { doctorCommand } = await import('./doctor.js');
      setExit(await doctorCommand(options));
    });

  program
    .command('init')
    .description('scaffold a vault: folders, a config and a sample task')
    .argument('[dir]', 'where (default: the current folder)')
    .option(
      '--harness <name>',
      'the agent of every task that names none: written as harness.default into .wiggum/config.yaml',
    )
    .action(async (dir: string | undefined, options: InitOptions) => {
      const { initCommand } = await import('./init.js');
      setExit(await initCommand(dir, options));
    });

  const context = program.command('context').description('guidance for a task, read by its next iteration');
  vaultOptions(context.command('add').description("append TEXT to the task's context"))
    .argument('<id>', TASK_REF)
    .argument('<text...>', 'the guidance')
    .action(async (id: string, text: string[], options: VaultOptions) => {
      const { contextCommand } = await import('./context.js');
      setExit(await contextCommand('add', id, text.join(' '), options));
    });
  vaultOptions(context.command('clear').description("empty the task's context"))
    .argument('<id>', TASK_REF)
    .action(async (id: string, options: VaultOptions) => {
      const { contextCommand } = await import('./context.js');
      setExit(await contextCommand('clear', id, undefined, options));
    });

  for (const command of [program, ...program.commands, ...context.commands]) {
    command.addHelpText('after', EXIT_CODES_HELP);
  }
  program.addHelpText(
    'after',
    'A harness of kind: command speaks by exit code (75 retry, 77/78 reject) and gets WIGGUM_* variables: wiggum help harness.',
  );
  // A help topic rather than a command: `wiggum help harness` (and `wiggum harness`) print it.
  const harness = program
    .command('harness')
    .description('how a kind: command harness talks to wiggum: its input, WIGGUM_* variables, exit codes')
    .addHelpText('after', HARNESS_HELP);
  harness.action(() => harness.outputHelp());
  return program;
}

const TASK_REF =
  'the task: its id, its file name (with or without .md) or its path; the id in any letter case when that is unambiguous';

const RUN_ENDED_HELP = `
A task in Done/ or Rejected/ is refused (exit 2): its run has ended. wiggum retry ID sends it back to
Approved/ with its memory and a fresh iteration budget (--fresh starts over); so does moving the file
back into Approved/. One in Blocked/ or Review/ is refused too: it waits for a person's answer or review. The file must be inside a vault (a folder with Approved/; wiggum init DIR makes one).`;

const EXIT_CODES_HELP =
  '\nExit codes: 0 complete, 1 failed or rejected, 2 usage or configuration error, 3 stopped or interrupted.';

/** The version in package.json, one folder above dist/. */
function packageVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of at least 1');
  return n;
}

function logLevel(value: string): LogLevel {
  if (!isLogLevel(value)) throw new InvalidArgumentError(`expected one of ${LOG_LEVELS.join(', ')}`);
  return value;
}

async function main(argv: string[]): Promise<ExitCode> {
  let exitCode: ExitCode = EXIT.complete;
  const program = buildProgram((code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? EXIT.complete : EXIT.usage;
    }
    const message =
      error instanceof WiggumError
        ? error.message
        : error instanceof Error
          ? (error.stack ?? error.message)
          : String(error);
    process.stderr.write(`wiggum: ${message}\n`);
    return exitCodeFor(error);
  }
  return exitCode;
}

process.exitCode = await main(process.argv);
