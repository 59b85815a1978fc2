// A promise with its settle functions outside it: a batch's events and a key's follow-up request are
// settled later, by whoever completes them.

export interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined); // callers observe it; never an unhandled rejection here
  return { promise, resolve, reject };
}
