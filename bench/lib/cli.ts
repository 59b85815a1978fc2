// Command-line parsing for the bench and chaos scripts: --help prints the usage (exit 0); an unknown
// flag or a missing value names the problem and prints the usage (exit 2) instead of a stack trace.

/** Runs `parse` (a node:util parseArgs call whose options include `help`) with those rules. */
export function parseCli<R extends { values: { help?: boolean | undefined } }>(
  name: string,
  usage: string,
  parse: () => R,
): R {
  let parsed: R;
  try {
    parsed = parse();
  } catch (err) {
    process.stderr.write(`${name}: ${err instanceof Error ? err.message : String(err)}\n\n${usage}\n`);
    process.exit(2);
  }
  if (parsed.values.help === true) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  return parsed;
}
