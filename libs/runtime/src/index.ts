export { Shutdown, type ShutdownOptions, type ShutdownSignal, type StopOptions } from './shutdown.ts';
export { withTimeout } from './timeout.ts';
