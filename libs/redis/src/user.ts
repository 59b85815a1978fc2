// At start, each app tries one thing its Redis user must be refused (libs/redis's acl.ts), and logs what
// Redis answered: an operator reads in the log that the ACLs are in force, or that this app could do
// more than it needs (the single-password fallback, or an ACL wider than the documented one). The probe
// deletes a key that never exists (a name no PodSet key can have), so it changes nothing when allowed.
import { projectionKeyNames } from './keyspace.ts';
import type { Logger } from '@podset/log';
import type { RedisConnector } from './connection.ts';

export type ProbedApp = 'watcher' | 'worker' | 'dashboard';

export interface UserProbe {
  /** What the app's user must not do, for the log. */
  what: string;
  key: string;
}

/** Names no PodSet key has (not a valid `namespace/name`), under each app's forbidden area. */
export function userProbe(app: ProbedApp, prefix: string, queueName: string): UserProbe {
  const projectedPodSet = projectionKeyNames(prefix, queueName).of('!acl-probe').podset;
  switch (app) {
    case 'watcher':
      return { what: 'writing outside the queue prefix', key: `${prefix}-acl-probe:!none` };
    case 'worker':
      return { what: 'writing a projected PodSet', key: projectedPodSet };
    case 'dashboard':
      return { what: 'writing to Redis', key: projectedPodSet };
  }
}

export type ProbeVerdict = { refused: true; reply: string } | { refused: false };

/** Runs the probe: refused (NOPERM) or not. Other errors (Redis down) are thrown. */
export async function probeUser(connector: RedisConnector, probe: UserProbe): Promise<ProbeVerdict> {
  const client = connector.client({ maxRetriesPerRequest: 1 });
  client.on('error', () => undefined);
  try {
    await client.del(probe.key);
    return { refused: false };
  } catch (err) {
    const text = err instanceof Error ? err.message : String(err);
    if (/NOPERM/.test(text)) return { refused: true, reply: text.split(' ')[0] ?? 'NOPERM' };
    throw err;
  } finally {
    client.disconnect();
  }
}

/** For an app's start: the probe's verdict in the log (never fatal: the single-password mode is allowed). */
export async function logRedisUser(
  app: ProbedApp,
  connector: RedisConnector,
  opts: {
    prefix: string;
    queueName: string;
    username: string | undefined;
    log: Pick<Logger, 'info' | 'warn'>;
  },
): Promise<void> {
  const probe = userProbe(app, opts.prefix, opts.queueName);
  const user = opts.username ?? 'default';
  let verdict: ProbeVerdict;
  try {
    verdict = await probeUser(connector, probe);
  } catch (err) {
    opts.log.warn(
      { redisUser: user, err: err instanceof Error ? err.message : String(err) },
      `redis ACL: could not check that this user is refused ${probe.what}`,
    );
    return;
  }
  if (verdict.refused) {
    opts.log.info(
      { redisUser: user, refused: probe.what, reply: verdict.reply },
      `redis ACL: user ${user} is refused ${probe.what}`,
    );
    return;
  }
  opts.log.warn(
    { redisUser: user, allowed: probe.what },
    `redis ACL: user ${user} is allowed ${probe.what}: this app can change state it must not ` +
      '(one password for every app, or an ACL wider than the documented one; see SECURITY.md)',
  );
}
