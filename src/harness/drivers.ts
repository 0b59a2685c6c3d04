import type { HarnessKind } from '../config/schema.js';
import { commandDriver } from './command-driver.js';
import type { HarnessDriver } from './driver.js';

const DRIVERS: Partial<Record<HarnessKind, HarnessDriver>> = {
  command: commandDriver,
};

/** The driver for a harness kind. Kinds without a driver of their own read output as plain text. */
export function driverFor(kind: HarnessKind): HarnessDriver {
  return DRIVERS[kind] ?? commandDriver;
}
