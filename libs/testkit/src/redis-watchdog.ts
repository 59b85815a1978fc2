// Started detached beside each redis-server by startRedis. redis-server takes no preload, so it cannot
// notice that the test process died; this does: its stdin is a pipe from the test process, which the
// kernel closes however that process ends (SIGKILL included). Then it kills the server named by the pid
// file and removes the data dir, so a crashed or interrupted test leaves no server or temp dir behind.
// Usage: node redis-watchdog.ts <data dir> <pid file>
import { readFileSync, rmSync } from 'node:fs';
import { isAlive } from './alive.ts';
import { systemClock } from '@podset/clock';

const [dir, pidFile] = process.argv.slice(2);
if (dir === undefined || pidFile === undefined) throw new Error('usage: redis-watchdog.ts <dir> <pidfile>');

function serverPid(): number | undefined {
  try {
    const pid = Number(readFileSync(pidFile as string, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function cleanUp(): void {
  const pid = serverPid();
  if (pid !== undefined && isAlive(pid)) process.kill(pid, 'SIGKILL');
  // Remove the dir only once the server is gone, so it cannot write into it afterwards.
  const deadline = systemClock.now() + 5_000;
  const finish = () => {
    if (pid !== undefined && isAlive(pid) && systemClock.now() < deadline) {
      setTimeout(finish, 20);
      return;
    }
    rmSync(dir as string, { recursive: true, force: true });
    process.exit(0);
  };
  finish();
}

// SIGINT/SIGHUP reach the whole terminal session; stay alive to clean up after the parent.
process.on('SIGINT', () => {});
process.on('SIGHUP', () => {});
process.stdin.on('error', cleanUp);
process.stdin.on('end', cleanUp);
process.stdin.resume();
