// Test preload (node --import): the moment the app installs its SIGTERM handler, writes a line and
// stops itself (SIGSTOP). The test then sends SIGTERM and SIGCONT, so the signal is pending when the
// app resumes loading its modules: exactly "SIGTERM during start-up", with no guessed delay.
// Hooked into process.on, synchronously: module loading does not turn the event loop, so a timer
// would only notice the handler once start-up is over.
import { writeSync } from 'node:fs';

const on = process.on.bind(process);
process.on = ((event: string | symbol, listener: (...args: unknown[]) => void) => {
  const result = on(event, listener);
  if (event === 'SIGTERM') {
    writeSync(2, 'signal-probe: SIGTERM handler installed; stopping\n');
    process.kill(process.pid, 'SIGSTOP');
  }
  return result;
}) as typeof process.on;
