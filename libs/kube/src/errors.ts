import type { Status } from './types.ts';

/**
 * A non-2xx answer from the API server: `code` is the HTTP status, `reason` and `message` come from the
 * metav1.Status body (e.g. 409 Conflict, 404 NotFound, 422 Invalid, 403 Forbidden, 429 TooManyRequests).
 */
export class KubeApiError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly status: Status | undefined;
  readonly verb: string;
  readonly path: string;
  readonly retryAfterSeconds: number | undefined;

  constructor(opts: {
    code: number;
    reason: string;
    message: string;
    status?: Status;
    verb: string;
    path: string;
    retryAfterSeconds?: number;
  }) {
    super(`${opts.verb} ${opts.path}: ${opts.code} ${opts.reason}: ${opts.message}`);
    this.name = 'KubeApiError';
    this.code = opts.code;
    this.reason = opts.reason;
    this.status = opts.status;
    this.verb = opts.verb;
    this.path = opts.path;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }

  /** The server's own message (without verb/path). */
  get statusMessage(): string {
    return this.status?.message ?? this.message;
  }
}

export function isKubeApiError(err: unknown): err is KubeApiError {
  return err instanceof KubeApiError;
}

export const isNotFound = (err: unknown): boolean => isKubeApiError(err) && err.code === 404;
export const isConflict = (err: unknown): boolean => isKubeApiError(err) && err.code === 409;

/** The reason a Status of `code` carries, for an answer that brought none. */
export function defaultReason(code: number): string {
  switch (code) {
    case 400:
      return 'BadRequest';
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'NotFound';
    case 405:
      return 'MethodNotAllowed';
    case 409:
      return 'Conflict';
    case 410:
      return 'Expired';
    case 415:
      return 'UnsupportedMediaType';
    case 422:
      return 'Invalid';
    case 429:
      return 'TooManyRequests';
    case 500:
      return 'InternalError';
    case 503:
      return 'ServiceUnavailable';
    case 504:
      return 'Timeout';
    default:
      return 'Unknown';
  }
}
