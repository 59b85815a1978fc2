// podset-watcher's entry point, and where its exit codes are decided. The signal handlers go in before
// anything heavy loads, so a SIGTERM during start-up stops it cleanly (exit 0) instead of killing it by
// the signal; the app is in app.ts.
import { exitOnListenError, Shutdown } from '@podset/runtime';

const shutdown = new Shutdown({
  name: 'podset-watcher',
  // A stop that hangs on a dependency (Redis or the API not answering) exits 0 anyway: nothing is
  // lost (the checkpoint only trails), and the pod must not stay terminating.
  timeoutExitCode: 0,
});
const { main } = await import('./app.ts');
// Returns once started; the stop (at the first signal) exits 0, or 1 when it fails. HTTP_PORT taken or
// not allowed is a usage error, as a bad variable is (one line, exit 2).
await main(shutdown).catch((err: unknown) => exitOnListenError('watcher', err));
