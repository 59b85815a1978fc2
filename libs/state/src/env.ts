// Where a reconcile's state comes from, declared once: the watcher (which keeps the projection) and the
// workers (which read it) spread this spec into theirs, so the name, the default and the values agree.
// The same for the projection's integrity key, which both must hold (and nothing else: not the dashboard).
import { readFileSync } from 'node:fs';
import { ConfigError, oneOf, optionalStr } from '@podset/config';
import { MIN_KEY_LENGTH, type TagKeys } from './integrity.ts';

export const stateSourceEnv = {
  STATE_SOURCE: oneOf(['projection', 'api'] as const, {
    description:
      'projection: the watcher folds every event into a per-PodSet state in Redis and requests a reconcile only for events that can change a plan, and workers read that state in one Redis round trip (the API when it is not complete yet, or after a conflict), planning only once their own last creates and deletes show in it; api (the fallback): each reconcile GETs the PodSet and LISTs its pods, and the watcher requests one for the same events, remembering what a plan reads of each object in memory (the same for the watcher and the workers)',
    default: 'projection',
  }),
  PROJECTION_HMAC_KEY: optionalStr({
    description: `The projection's integrity key (at least ${MIN_KEY_LENGTH} characters; the same for the watcher and every worker, and given to nothing else): the watcher tags every entry it folds into Redis with an HMAC-SHA256 under it, and a worker plans only from entries whose tag checks (any other is read from the API). Unset (and no PROJECTION_HMAC_KEY_FILE) with STATE_SOURCE=projection: the workers never plan from the projection, they read every key from the API (a warning at start). See SECURITY.md for rotation`,
  }),
  PROJECTION_HMAC_KEY_FILE: optionalStr({
    description:
      'A file holding PROJECTION_HMAC_KEY (a mounted Secret; one trailing newline is ignored); not both',
  }),
  PROJECTION_HMAC_PREVIOUS_KEY: optionalStr({
    description:
      'During a key rotation only: the key before PROJECTION_HMAC_KEY, whose tags workers still accept until every entry has been folded again (SECURITY.md)',
  }),
} as const;

type KeyConfig = {
  PROJECTION_HMAC_KEY: string | undefined;
  PROJECTION_HMAC_KEY_FILE: string | undefined;
  PROJECTION_HMAC_PREVIOUS_KEY: string | undefined;
};

/**
 * The projection's integrity keys from the configuration, undefined when none is given. Throws a
 * ConfigError naming the variable: both the key and its file, a file that cannot be read, a key too short.
 */
export function projectionHmacKeys(cfg: KeyConfig): TagKeys | undefined {
  const problems: { variable: string; message: string }[] = [];
  let current = cfg.PROJECTION_HMAC_KEY;
  let from = 'PROJECTION_HMAC_KEY';
  if (cfg.PROJECTION_HMAC_KEY_FILE !== undefined) {
    from = 'PROJECTION_HMAC_KEY_FILE';
    if (current !== undefined) {
      problems.push({ variable: from, message: 'set together with PROJECTION_HMAC_KEY: give one of them' });
    }
    try {
      current = readFileSync(cfg.PROJECTION_HMAC_KEY_FILE, 'utf8').replace(/\r?\n$/, '');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? String(err);
      problems.push({ variable: from, message: `cannot read ${cfg.PROJECTION_HMAC_KEY_FILE} (${code})` });
      current = undefined;
    }
  }
  const tooShort = (k: string) =>
    `is ${k.length} characters, at least ${MIN_KEY_LENGTH} needed (e.g. openssl rand -base64 32)`;
  if (current !== undefined && current.length < MIN_KEY_LENGTH) {
    problems.push({ variable: from, message: tooShort(current) });
  }
  const previous = cfg.PROJECTION_HMAC_PREVIOUS_KEY;
  if (previous !== undefined) {
    if (previous.length < MIN_KEY_LENGTH) {
      problems.push({ variable: 'PROJECTION_HMAC_PREVIOUS_KEY', message: tooShort(previous) });
    }
    if (current === undefined && problems.length === 0) {
      problems.push({
        variable: 'PROJECTION_HMAC_PREVIOUS_KEY',
        message: 'set without PROJECTION_HMAC_KEY (or its _FILE): a previous key goes with a current one',
      });
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  if (current === undefined) return undefined;
  return { current, ...(previous !== undefined ? { previous } : {}) };
}
