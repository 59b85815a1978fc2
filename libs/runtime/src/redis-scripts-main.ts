// Entry point of the script loader (redis-scripts.ts): a container beside Redis (k8s/base/redis.yaml,
// compose's redis-scripts service, the demo), connected as the loader's user (REDIS_USERNAME
// podset-scripts). Every REDIS_SCRIPTS_INTERVAL_SECONDS it asks Redis which of the operator's scripts it
// lacks and loads them; Redis unreachable: it waits, backing off up to 5 s, and says so once per error.
// `--once`: load and exit (0 loaded or nothing missing, 1 Redis refused) for a one-off set-up.
// HTTP_PORT (not 0): /healthz (the process runs) and /readyz (the last check found every script cached).
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError, parseEnv } from '@podset/config';
import { redisConnector } from '@podset/queue';
import { loadMissing, operatorScripts, redisScriptsEnv as env } from './redis-scripts.ts';

/** /healthz: alive; /readyz: every script cached at the last check. */
function serveHealth(port: number, ready: () => boolean): () => void {
  if (port === 0) return () => undefined;
  const server = createServer((req, res) => {
    const ok = req.url === '/healthz' || (req.url === '/readyz' && ready());
    res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' }).end(ok ? 'ok\n' : 'not ready\n');
  });
  server.listen(port);
  return () => server.close();
}

function say(line: string): void {
  process.stdout.write(`redis-scripts: ${line}\n`);
}

async function main(): Promise<void> {
  let cfg;
  try {
    cfg = parseEnv(env, process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`redis-scripts: ${err.message}\n`);
    process.exit(2);
  }
  const connector = redisConnector(cfg);
  const client = connector.client({ maxRetriesPerRequest: 1 });
  let lastError = '';
  client.on('error', (err: Error) => {
    if (err.message !== lastError) say(`redis error: ${err.message}`);
    lastError = err.message;
  });
  const scripts = await operatorScripts();
  const stop = new AbortController();
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => stop.abort());
  const once = process.argv.includes('--once');
  say(`keeping ${scripts.length} scripts in ${connector.target}`);
  let failures = 0;
  let cached = false;
  const closeHealth = serveHealth(cfg.HTTP_PORT, () => cached);
  while (!stop.signal.aborted) {
    try {
      const loaded = await loadMissing(client, scripts);
      if (loaded > 0) say(`loaded ${loaded} scripts`);
      failures = 0;
      cached = true;
      lastError = '';
      if (once) break;
    } catch (err) {
      const text = err instanceof Error ? err.message : String(err);
      if (text !== lastError) say(`could not load the scripts: ${text}`);
      lastError = text;
      failures++;
      cached = false;
      if (once && /NOPERM|WRONGPASS|NOAUTH/.test(text)) {
        client.disconnect();
        process.exit(1);
      }
    }
    const waitMs =
      failures === 0 ? cfg.REDIS_SCRIPTS_INTERVAL_SECONDS * 1000 : Math.min(250 * 2 ** failures, 5000);
    await sleep(waitMs, undefined, { signal: stop.signal }).catch(() => undefined);
  }
  closeHealth();
  client.disconnect();
}

await main();
