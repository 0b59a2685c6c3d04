#!/usr/bin/env node
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import type { LogLevel } from '../log/logger.js';
import { WiggumError } from '../errors.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import type { ExitCode } from './exit-codes.js';

/**
 * argv → options → a command; the commands hold no argument parsing and this file no logic.
 * Each command is imported only when it runs, so `wiggum status` does not pay for the daemon.
 */
function buildProgram(setExit: (code: ExitCode) => void): Command {
  const program = new Command('wiggum')
    .description('Drives Markdown tasks in a vault through a bounded, crash-safe agent persistence loop.')
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
    .argument('<file>', 'the task file')
    .option('--harness <name>', 'a harness from the config, instead of the task\'s')
    .option('--max-iterations <n>', 'bound on iterations', positiveInt)
    .option('--completion-promise <text>', 'the TEXT of <promise>TEXT</promise>')
    .option('--no-stream', 'do not show the harness output live (it is still captured)')
    .option('--fail-fast', 'stop at the first harness failure')
    .option('--vault <dir>', 'the vault (default: found from the file)')
    .option('--config <file>', 'a config file merged over the vault config')
    .option('--log-level <level>', 'trace, debug, info, warn, error or fatal')
    .action(async (file: string, options: RunCliOptions) => {
      const { runCommand } = await import('./run.js');
      setExit(await runCommand(file, options));
    });

  return program;
}

interface RunCliOptions {
  harness?: string;
  maxIterations?: number;
  completionPromise?: string;
  stream: boolean;
  failFast?: boolean;
  vault?: string;
  config?: string;
  logLevel?: LogLevel;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of at least 1');
  return n;
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
    const message = error instanceof WiggumError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`wiggum: ${message}\n`);
    return exitCodeFor(error);
  }
  return exitCode;
}

process.exitCode = await main(process.argv);
