// podset-dashboard's entry point. The signal handlers go in before anything heavy loads, so a SIGTERM
// during start-up stops it cleanly (exit 0) instead of killing it by the signal; the app is in app.ts.
import { Shutdown } from '@podset/runtime';

const shutdown = new Shutdown({ name: 'podset-dashboard' });
const { main } = await import('./app.ts');
await main(shutdown);
