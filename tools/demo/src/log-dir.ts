// The logs of one run of `npm run demo` or `npm run operator`: the apps append to their files, so a run
// that found the previous run's files would mix both. Each run starts with empty files; the previous
// run's are kept beside them as NAME.1 (one run back, as logrotate's first generation).
import { mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';

/** Creates `dir` if needed and moves each file of the previous run to NAME.1; returns their names. */
export function freshLogDir(dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const files = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile());
  // Two runs back is gone, also for a file the previous run did not write.
  for (const old of files.filter((e) => e.name.endsWith('.1'))) rmSync(path.join(dir, old.name));
  const moved = files.filter((e) => !e.name.endsWith('.1')).map((e) => e.name);
  for (const name of moved) renameSync(path.join(dir, name), path.join(dir, `${name}.1`));
  return moved;
}
