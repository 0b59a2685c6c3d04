import type { HarnessKind } from '../../config/schema.js';
import { ampDriver } from './amp-driver.js';
import { claudeDriver } from './claude-driver.js';
import { codexDriver } from './codex-driver.js';
import { commandDriver } from './command-driver.js';
import type { HarnessDriver } from './driver.js';
import { geminiDriver } from './gemini-driver.js';
import { opencodeDriver } from './opencode-driver.js';

const DRIVERS: Partial<Record<HarnessKind, HarnessDriver>> = {
  command: commandDriver,
  claude: claudeDriver,
  codex: codexDriver,
  opencode: opencodeDriver,
  amp: ampDriver,
  gemini: geminiDriver,
};

/** The driver for a harness kind. Kinds without a driver of their own read output as plain text. */
export function driverFor(kind: HarnessKind): HarnessDriver {
  return DRIVERS[kind] ?? commandDriver;
}
