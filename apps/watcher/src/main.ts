// podset-watcher's entry point. The signal handlers go in before anything heavy loads, so a SIGTERM
// during start-up stops it cleanly (exit 0) instead of killing it by the signal; the app is in app.ts.
import { Shutdown } from '@podset/runtime';

const shutdown = new Shutdown({
  name: 'podset-watcher',
  // A stop that hangs on a dependency (Redis or the API not answering) exits 0 anyway: nothing is
  // lost (the checkpoint only trails), and the pod must not stay terminating.
  timeoutExitCode: 0,
});
const { main } = await import('./app.ts');
await main(shutdown);
