// Work that runs one task at a time per lane: a node's kubelet writes one pod status at a time (its status
// manager is one loop), and the scheduler binds through a few lanes. Without lanes every pod's request
// would start at once, thousands of connections that the API server resets or that time out waiting;
// with them the agent's concurrency is that of the kubelets and the scheduler it plays.

export class Lanes {
  readonly #tails = new Map<string, Promise<void>>();

  /** Runs `task` after the tasks given to `lane` before it; resolves or rejects as `task` does. */
  run<T>(lane: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(lane) ?? Promise.resolve();
    const result = previous.then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(lane, tail);
    // A lane with nothing queued forgets its tail, so lanes of gone pods or nodes do not pile up.
    void tail.then(() => {
      if (this.#tails.get(lane) === tail) this.#tails.delete(lane);
    });
    return result;
  }

  /** Lanes with a task running or queued. */
  get busy(): number {
    return this.#tails.size;
  }
}
