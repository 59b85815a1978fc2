// podset-worker's entry point. The signal handlers go in before anything heavy loads, so a SIGTERM
// that arrives while the worker is still loading or connecting stops it cleanly (exit 0) instead of
// killing it by the signal; the worker itself is in app.ts.
import { Shutdown } from '@podset/runtime';

const shutdown = new Shutdown({ name: 'podset-worker' });
const { main } = await import('./app.ts');
await main(shutdown);
