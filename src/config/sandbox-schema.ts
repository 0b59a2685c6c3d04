import { z } from 'zod';
import { sizeBytes } from './units.js';

/** `sandbox.mode`: how agents are confined (docs/sandbox.md). */
export const SANDBOX_MODES = ['auto', 'bwrap', 'off'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** `sandbox.network`: `on` shares the network, `off` an empty namespace, `allow` only a proxy (later). */
export const NETWORK_MODES = ['on', 'off', 'allow'] as const;
export type NetworkMode = (typeof NETWORK_MODES)[number];

const size = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const bytes = sizeBytes(value);
  if (bytes === undefined) {
    ctx.addIssue({ code: 'custom', message: `"${value}" is not a size: use bytes (1048576) or a unit (64KiB, 4GiB)` });
    return z.NEVER;
  }
  return bytes;
});

/** An absolute path, or one under the home (`~/…`): what a person adds to the agent's view. */
const path = z.string().regex(/^(\/|~\/|~$)/, { message: 'an absolute path, or ~/… for one under the home' });

/** A path relative to the home (`.codex/auth.json` or `~/.codex/auth.json`), never outside it. */
const homePath = z
  .string()
  .min(1)
  .transform((text) => text.replace(/^~\//, ''))
  .refine((text) => !text.startsWith('/') && !text.split('/').includes('..'), {
    message: 'a path inside the home such as ~/.codex/auth.json, without ..',
  });

/** `home_files`: a path copied into the private home (`copy`, the default) or shown read-only (`ro`). */
const homeFile = z.union([
  homePath.transform((text) => ({ path: text, mode: 'copy' as const })),
  z.strictObject({ path: homePath, mode: z.enum(['copy', 'ro']).default('copy') }),
]);

// YAML 1.1 readers turn on/off into booleans: both spellings mean the same here.
const network = z.preprocess(
  (value) => (value === true ? 'on' : value === false ? 'off' : value),
  z.enum(NETWORK_MODES, { message: `network must be one of ${NETWORK_MODES.join(', ')}` }),
);

const limits = z.strictObject({
  // 0: no limit of this kind.
  processes: z.int().min(0).max(4_194_304),
  open_files: z.int().min(0).max(1_048_576),
  file_size: size,
});

const fields = {
  mode: z.enum(SANDBOX_MODES, { message: `mode must be one of ${SANDBOX_MODES.join(', ')}` }),
  required: z.boolean(),
  network,
  allow: z.array(z.string().regex(/^[A-Za-z0-9.:[\]-]+$/, { message: 'host or host:port' })),
  read_only: z.array(path),
  writable: z.array(path),
  hidden: z.array(path),
  home_files: z.array(homeFile),
};

/** The vault-wide `sandbox:`, complete once config/default.yaml is merged under it. */
export const sandboxSchema = z.strictObject({ ...fields, limits });

/** `harnesses.NAME.sandbox`: any of the same keys, over the vault-wide ones. */
export const harnessSandboxSchema = z.strictObject({
  mode: fields.mode.optional(),
  required: fields.required.optional(),
  network: fields.network.optional(),
  allow: fields.allow.optional(),
  read_only: fields.read_only.optional(),
  writable: fields.writable.optional(),
  hidden: fields.hidden.optional(),
  home_files: fields.home_files.optional(),
  limits: limits.partial().optional(),
});

export type RawSandbox = z.output<typeof sandboxSchema>;
export type RawHarnessSandbox = z.output<typeof harnessSandboxSchema>;
