export { Shutdown, type ShutdownOptions, type ShutdownSignal, type StopOptions } from './shutdown.ts';
