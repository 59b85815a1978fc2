// podset-watcher's entry point, and where its exit codes are decided. The signal handlers go in before
// anything heavy loads, so a SIGTERM during start-up stops it cleanly (exit 0) instead of killing it by
// the signal; the app is in app.ts.
import { Shutdown } from '@podset/runtime';

const shutdown = new Shutdown({
  name: 'podset-watcher',
  // A stop that hangs on a dependency (Redis or the API not answering) exits 0 anyway: nothing is
  // lost (the checkpoint only trails), and the pod must not stay terminating.
  timeoutExitCode: 0,
});
const { main } = await import('./app.ts');
const { ListenError } = await import('./http.ts');
try {
  // Returns once started; the stop (at the first signal) exits 0, or 1 when it fails.
  await main(shutdown);
} catch (err) {
  // HTTP_PORT taken or not allowed: a usage error, as a bad variable is (exit 2).
  if (!(err instanceof ListenError)) throw err;
  process.stderr.write(`watcher: HTTP_PORT: ${err.message}\n`);
  process.exit(2);
}
