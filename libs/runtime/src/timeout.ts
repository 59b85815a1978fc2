// A bound on how long an app waits for something that may never answer (a Redis PING, a cleanup, a read).

/** `p`, or a rejection naming `what` after `ms` (p itself goes on; the race handles a late rejection). */
export async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
