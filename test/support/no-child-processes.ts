// Preloaded into `npm run test:unit` (node --import): the fast tier runs no other program. Starting
// one (redis-server, an app, kubectl, a browser) throws here, so a test that needs one fails loudly in
// the unit tier instead of slowing it down, and belongs beside the integration tests (a test/ folder).
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

const forbid = (name: string) => () => {
  throw new Error(`test:unit runs no child processes (${name} called): move this test to a test/ folder`);
};
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const) {
  (childProcess as unknown as Record<string, unknown>)[name] = forbid(name);
}
syncBuiltinESMExports();
