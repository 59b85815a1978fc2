// podset-dashboard's entry point. The signal handlers go in before anything heavy loads, so a SIGTERM
// during start-up stops it cleanly (exit 0) instead of killing it by the signal; the app is in app.ts.
import { exitOnListenError, Shutdown } from '@podset/runtime';

const shutdown = new Shutdown({ name: 'podset-dashboard' });
const { main } = await import('./app.ts');
// A port taken or not allowed is a usage error, as a bad variable is (one line, exit 2).
await main(shutdown).catch((err: unknown) => exitOnListenError('dashboard', err));
