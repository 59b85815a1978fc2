// A bound on how long the worker waits for something that may never answer (a Redis PING, a cleanup).

/** `p`, or a rejection naming `what` after `ms` (p itself goes on; a late rejection is swallowed). */
export async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms);
  });
  p.catch(() => undefined); // a rejection after the timeout is not an unhandled one
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
