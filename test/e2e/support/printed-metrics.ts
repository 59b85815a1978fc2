// The `metrics` line that `npm run demo` and `npm run operator` print: each app's /metrics URL, checked
// to answer with the operator's metrics.
import assert from 'node:assert/strict';
import { until, type Run } from './npm-run.ts';

/** Asserts the run printed a /metrics URL for each of `apps` and that each serves `podset_` metrics. */
export async function assertPrintedMetricsServe(run: Run, apps: readonly string[]): Promise<void> {
  const line = /^metrics +(.*)$/m.exec(run.output());
  assert.ok(line, `no metrics line in:\n${run.output()}`);
  const urls = [...(line[1] ?? '').matchAll(/(\S+) (http:\/\/\S+)/g)];
  assert.deepEqual(
    urls.map((m) => m[1]),
    apps,
  );
  for (const [, app, url] of urls) {
    let body = '';
    await until(
      `${app} to serve podset_ metrics at ${url}`,
      60_000,
      async () => {
        body = await fetch(url as string).then(
          (r) => (r.ok ? r.text() : ''),
          () => '',
        );
        return /^podset_\w+/m.test(body);
      },
      run,
      () => body.slice(0, 500),
    );
  }
}
