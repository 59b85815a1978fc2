// Real Redis topologies for the connection tests: a primary + replica watched by a sentinel, and a
// 3-node Redis Cluster. Every process runs on free loopback ports in its own temp dir; close() kills
// them all and removes the dirs.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort, ping, Proc, waitFor } from '@podset/testkit';
import { Redis } from 'ioredis';

class Processes {
  readonly procs: Proc[] = [];
  readonly dirs: string[] = [];

  async dir(name: string): Promise<string> {
    const d = await mkdtemp(path.join(os.tmpdir(), `podset-${name}-`));
    this.dirs.push(d);
    return d;
  }

  /** Starts redis-server with `args` and waits until `port` answers PING. */
  async redis(args: string[], port: number): Promise<Proc> {
    const proc = new Proc({ name: `redis-server :${port}`, command: 'redis-server', args, env: process.env });
    this.procs.push(proc);
    await waitFor(`redis-server on ${port} to answer PING`, () => ping(port), {
      timeoutMs: 10_000,
      giveUp: () => (proc.running ? undefined : 'it exited'),
      describe: () => proc.describe(),
    });
    return proc;
  }

  async close(): Promise<void> {
    await Promise.all(this.procs.map((p) => p.kill()));
    await Promise.all(this.dirs.map((d) => rm(d, { recursive: true, force: true })));
  }
}

export async function command<T>(port: number, ...args: (string | number)[]): Promise<T> {
  const c = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
  c.on('error', () => undefined);
  try {
    await c.connect();
    return (await c.call(String(args[0]), ...args.slice(1).map(String))) as T;
  } finally {
    c.disconnect();
  }
}

// A maxmemory: the apps refuse a Redis without one.
const BASE = [
  '--bind',
  '127.0.0.1',
  '--save',
  '',
  '--appendonly',
  'no',
  '--daemonize',
  'no',
  '--maxmemory',
  '256mb',
];

export interface SentinelSetup {
  masterName: string;
  sentinelPort: number;
  primaryPort: number;
  replicaPort: number;
  /** The primary's port as the sentinel reports it now. */
  currentPrimaryPort(): Promise<number>;
  /** SENTINEL FAILOVER, then waits until the sentinel names the other node. */
  failover(): Promise<number>;
  close(): Promise<void>;
}

/** A primary, one replica, and one sentinel monitoring them (quorum 1). */
export async function startSentinelSetup(): Promise<SentinelSetup> {
  const p = new Processes();
  try {
    const masterName = 'podset-primary';
    const [primaryPort, replicaPort, sentinelPort] = [await freePort(), await freePort(), await freePort()];
    await p.redis(['--port', String(primaryPort), '--dir', await p.dir('primary'), ...BASE], primaryPort);
    await p.redis(
      [
        '--port',
        String(replicaPort),
        '--dir',
        await p.dir('replica'),
        '--replicaof',
        '127.0.0.1',
        String(primaryPort),
        ...BASE,
      ],
      replicaPort,
    );
    await waitFor('the replica in sync', async () => {
      const info = await command<string>(replicaPort, 'INFO', 'replication');
      return /master_link_status:up/.test(info) ? true : undefined;
    });
    const sentinelDir = await p.dir('sentinel');
    const conf = path.join(sentinelDir, 'sentinel.conf');
    await writeFile(
      conf,
      [
        `port ${sentinelPort}`,
        'bind 127.0.0.1',
        'daemonize no',
        `dir ${sentinelDir}`,
        `sentinel monitor ${masterName} 127.0.0.1 ${primaryPort} 1`,
        `sentinel down-after-milliseconds ${masterName} 5000`,
        `sentinel failover-timeout ${masterName} 20000`,
        '',
      ].join('\n'),
    );
    await p.redis([conf, '--sentinel'], sentinelPort);
    await waitFor('the sentinel to know the replica', async () => {
      const replicas = await command<string[][]>(sentinelPort, 'SENTINEL', 'REPLICAS', masterName);
      return replicas.some((r) => r.includes(String(replicaPort)) && r.join(' ').includes('slave'))
        ? true
        : undefined;
    });
    const currentPrimaryPort = async () => {
      const addr = await command<string[]>(sentinelPort, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', masterName);
      return Number(addr[1]);
    };
    return {
      masterName,
      sentinelPort,
      primaryPort,
      replicaPort,
      currentPrimaryPort,
      async failover() {
        const before = await currentPrimaryPort();
        // Knowing the replica is not enough: the sentinel promotes only a replica it has had a fresh
        // INFO reply from (else NOGOODSLAVE). Ask until it accepts; a timeout reports the last refusal.
        await waitFor('the sentinel to accept a failover', async () => {
          await command(sentinelPort, 'SENTINEL', 'FAILOVER', masterName);
          return true;
        });
        return await waitFor('the sentinel to name a new primary', async () => {
          const now = await currentPrimaryPort();
          if (now === before) return undefined;
          const role = await command<string>(now, 'INFO', 'replication');
          return /role:master/.test(role) ? now : undefined;
        });
      },
      close: () => p.close(),
    };
  } catch (err) {
    await p.close();
    throw err;
  }
}

export interface ClusterSetup {
  /** host:port of every node, for REDIS_CLUSTER_NODES. */
  nodes: string[];
  ports: number[];
  close(): Promise<void>;
}

/** Three masters (no replicas) sharing the 16384 slots. */
export async function startCluster(): Promise<ClusterSetup> {
  const p = new Processes();
  try {
    const ports: number[] = [];
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const busPort = await freePort();
      ports.push(port);
      await p.redis(
        [
          '--port',
          String(port),
          '--cluster-enabled',
          'yes',
          '--cluster-port',
          String(busPort),
          '--cluster-config-file',
          'nodes.conf',
          '--cluster-node-timeout',
          '5000',
          '--dir',
          await p.dir(`cluster-${i}`),
          ...BASE,
        ],
        port,
      );
    }
    const nodes = ports.map((port) => `127.0.0.1:${port}`);
    const create = new Proc({
      name: 'redis-cli --cluster create',
      command: 'redis-cli',
      args: ['--cluster', 'create', ...nodes, '--cluster-replicas', '0', '--cluster-yes'],
      env: process.env,
    });
    const { code } = await create.exited;
    if (code !== 0) throw new Error(`redis-cli --cluster create failed (${code}): ${create.tail(40)}`);
    for (const port of ports) {
      await waitFor(`cluster_state:ok on ${port}`, async () => {
        const info = await command<string>(port, 'CLUSTER', 'INFO');
        return /cluster_state:ok/.test(info) && /cluster_known_nodes:3/.test(info) ? true : undefined;
      });
    }
    return { nodes, ports, close: () => p.close() };
  } catch (err) {
    await p.close();
    throw err;
  }
}

/** The cluster slot of a key, as Redis computes it. */
export function keySlot(port: number, key: string): Promise<number> {
  return command<number>(port, 'CLUSTER', 'KEYSLOT', key);
}
