import { WiggumError } from '../errors.js';

/**
 * The settings that shape a ralph loop and are remembered in its task file, so that resuming a
 * change without flags runs the same agent under the same rules. Absent values are not recorded;
 * the config's defaults apply to them.
 */
export interface LoopSettings {
  harness?: string;
  maxIterations?: number;
  completionPromise?: string;
  failFast?: boolean;
}

/** The settings a run goes with: a harness is always known (or nothing runs). */
export interface ChosenSettings extends LoopSettings {
  harness: string;
}

export type SettingSource = 'flag' | 'recorded' | 'default';

export interface Picked<T> {
  value: T;
  source: SettingSource;
  /** The recorded value a different flag replaced; null when nothing was replaced. */
  replaced: T | null;
}

/**
 * Which setting wins: the flag given now, then the one recorded by an earlier run of the loop,
 * then the configured default. Undefined when none is set.
 */
export function pickSetting<T>(flag: T | undefined, recorded: T | undefined, configured?: T): Picked<T> | undefined {
  if (flag !== undefined)
    return { value: flag, source: 'flag', replaced: recorded !== undefined && recorded !== flag ? recorded : null };
  if (recorded !== undefined) return { value: recorded, source: 'recorded', replaced: null };
  if (configured !== undefined) return { value: configured, source: 'default', replaced: null };
  return undefined;
}

export interface SettingsInput {
  flags: LoopSettings;
  recorded: LoopSettings;
  /** `harness.default` from the config; empty or absent when none is configured. */
  configuredHarness: string | null | undefined;
  /** The harness names the config defines. */
  harnesses: readonly string[];
}

export interface SettingsChoice {
  settings: ChosenSettings;
  /** Where the harness came from, for the log. */
  harnessSource: SettingSource;
  /** One line per recorded setting that a different flag replaced, naming both values. */
  switches: string[];
}

/**
 * The settings a ralph run goes with, and what to say about them. A loop must never run with an
 * agent nobody chose: with no --harness, none recorded and no configured default, E_USAGE. A
 * recorded harness the config no longer defines is E_USAGE too, rather than a rejected loop.
 */
export function chooseSettings(input: SettingsInput): SettingsChoice {
  const { flags, recorded, harnesses } = input;
  const configured =
    input.configuredHarness === null || input.configuredHarness === undefined || input.configuredHarness.trim() === ''
      ? undefined
      : input.configuredHarness;
  const harness = pickSetting(flags.harness, recorded.harness, configured);
  if (harness === undefined) {
    throw new WiggumError(
      'E_USAGE',
      'this loop has no harness: none was given, none is recorded for it and the config sets no harness.default; pass --harness NAME' +
        (harnesses.length === 0
          ? ' (define one under harnesses: in .wiggum/config.yaml)'
          : ` (one of ${harnesses.join(', ')})`),
    );
  }
  if (!harnesses.includes(harness.value)) {
    const where =
      harness.source === 'recorded'
        ? `the loop's recorded harness "${harness.value}"`
        : `harness.default "${harness.value}"`;
    throw new WiggumError(
      'E_USAGE',
      `${where} is not defined in the config (the configured ones are ${harnesses.join(', ') || 'none'}); pass --harness NAME to run the loop with another`,
    );
  }
  const maxIterations = pickSetting(flags.maxIterations, recorded.maxIterations);
  const completionPromise = pickSetting(flags.completionPromise, recorded.completionPromise);
  const failFast = pickSetting(flags.failFast, recorded.failFast);

  const switches: string[] = [];
  const said = <T>(label: string, picked: Picked<T> | undefined, show: (value: T) => string): void => {
    if (picked !== undefined && picked.replaced !== null)
      switches.push(`${label}: ${show(picked.value)} instead of the recorded ${show(picked.replaced)}`);
  };
  said('harness', harness, String);
  said('max iterations', maxIterations, String);
  said('completion promise', completionPromise, (value) => JSON.stringify(value));
  said('fail fast', failFast, (value) => (value ? 'on' : 'off'));

  return {
    settings: {
      harness: harness.value,
      ...(maxIterations === undefined ? {} : { maxIterations: maxIterations.value }),
      ...(completionPromise === undefined ? {} : { completionPromise: completionPromise.value }),
      ...(failFast === undefined ? {} : { failFast: failFast.value }),
    },
    harnessSource: harness.source,
    switches,
  };
}

/** The recorded settings in one line, for `wiggum ralph --status`. */
export function describeRecorded(recorded: LoopSettings): string {
  if (recorded.harness === undefined)
    return 'recorded: no harness yet (the next run uses --harness NAME or harness.default)';
  const parts = [`harness ${recorded.harness}`];
  if (recorded.maxIterations !== undefined) parts.push(`max iterations ${recorded.maxIterations}`);
  if (recorded.completionPromise !== undefined)
    parts.push(`completion promise ${JSON.stringify(recorded.completionPromise)}`);
  if (recorded.failFast !== undefined) parts.push(`fail fast ${recorded.failFast ? 'on' : 'off'}`);
  return `recorded: ${parts.join(', ')}`;
}

/** The chosen settings that differ from the recorded ones: what a run has to write down. */
export function unrecorded(chosen: LoopSettings, recorded: LoopSettings): LoopSettings {
  const changed: LoopSettings = {};
  if (chosen.harness !== undefined && chosen.harness !== recorded.harness) changed.harness = chosen.harness;
  if (chosen.maxIterations !== undefined && chosen.maxIterations !== recorded.maxIterations)
    changed.maxIterations = chosen.maxIterations;
  if (chosen.completionPromise !== undefined && chosen.completionPromise !== recorded.completionPromise)
    changed.completionPromise = chosen.completionPromise;
  if (chosen.failFast !== undefined && chosen.failFast !== recorded.failFast) changed.failFast = chosen.failFast;
  return changed;
}
