// How long each app waits on others, the same for every app: a probe that waits longer than the kubelet's
// probe timeout (1 s by default, ours set in k8s/) is worse than one that answers "not ready".

/** A readiness probe's call to the Kubernetes API. */
export const API_PROBE_TIMEOUT_MS = 3_000;
/** A readiness probe's PING to Redis. */
export const REDIS_PROBE_TIMEOUT_MS = 2_000;
/**
 * After SIGTERM, how long an app waits for its work to end and its connections to close before it exits
 * anyway: a hung dependency (Redis or the API not answering) must not keep the pod terminating.
 */
export const SHUTDOWN_LIMIT_MS = 10_000;
