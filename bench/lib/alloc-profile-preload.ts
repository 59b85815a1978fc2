// Loaded with --import by `npm run bench -- <scenario> --alloc-profile DIR` into the watcher, the workers and
// the peer: V8's sampling heap profiler over the process's whole run, the objects both generations collected
// included, so it says what the process allocated and where (the garbage collector's work follows it), not
// only what it kept. Written at exit as DIR/<app>-<pid>.heapprofile (Chrome DevTools' format);
// `node_modules/.bin/node bench/profile-summary.ts FILE.heapprofile` sums it per function. The directory comes
// in this module's URL (`?dir=`): the apps' environment is theirs.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';

const dir = new URL(import.meta.url).searchParams.get('dir');
if (dir === null || dir === '') throw new Error('alloc-profile-preload: no ?dir= in its URL');
/** One sample per this many bytes allocated, on average (V8's default is 32 KiB). */
const SAMPLING_INTERVAL = 16 * 1024;

const session = new Session();
session.connect();
session.post('HeapProfiler.enable');
session.post('HeapProfiler.startSampling', {
  samplingInterval: SAMPLING_INTERVAL,
  includeObjectsCollectedByMinorGC: true,
  includeObjectsCollectedByMajorGC: true,
});
// The app, by its main module: apps/<app>/src/main.ts, or the directory of any other (bench/peer/main.ts).
const main = process.argv[1] ?? '';
const app =
  /\/apps\/([^/]+)\/src\/main\.ts$/.exec(main)?.[1] ?? (path.basename(path.dirname(main)) || 'node');
process.on('exit', () => {
  // An in-process session answers at once, so the profile is written before the process is gone.
  session.post('HeapProfiler.stopSampling', (err, result) => {
    if (err !== null) {
      process.stderr.write(`alloc-profile-preload: ${String(err)}\n`);
      return;
    }
    writeFileSync(path.join(dir, `${app}-${process.pid}.heapprofile`), JSON.stringify(result.profile));
  });
});
