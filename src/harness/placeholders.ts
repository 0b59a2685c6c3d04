/** Values for the `{name}` placeholders a harness's `args` may use (see config/default.yaml). */
export interface PlaceholderValues {
  workdir: string;
  session_dir: string;
  prd: string;
  progress: string;
  context: string;
  task_id: string;
  iteration: string;
  promise: string;
}

/** Fills `{workdir}`, `{session_dir}`, … into each argument; unknown `{words}` are left alone. */
export function expandArgs(args: readonly string[], values: PlaceholderValues): string[] {
  return args.map((arg) =>
    arg.replace(/\{([a-z_]+)\}/g, (whole, name: string) =>
      name in values ? values[name as keyof PlaceholderValues] : whole,
    ),
  );
}
