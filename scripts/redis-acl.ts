// The Redis ACL of the apps' users (libs/redis's acl.ts, the one source), as a user gives it to Redis or
// to a managed Redis provider, and the block of docs/install.md that shows it (kept generated).
//   npm run redis-acl -- [--prefix P] [--queue Q] [--event-log-key K] [--dashboard-writes] [--file]
//       print `ACL SETUSER` lines (or, with --file, an ACL file) for these settings, passwords as
//       placeholders <WATCHER_PASSWORD>, <WORKER_PASSWORD>, <DASHBOARD_PASSWORD>, <SCRIPTS_PASSWORD>
//       (the script loader's) and <OPS_PASSWORD> (the operations user's) to replace
//   npm run redis-acl -- --docs [--check]   rewrite (or check) the block in docs/install.md
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import {
  aclFile,
  aclSetUserArgs,
  APP_USERS,
  OPS_RULES,
  OPS_USERNAME,
  SCRIPTS_RULES,
  SCRIPTS_USERNAME,
  type AclScope,
  type AppUser,
} from '@podset/redis';

export const INSTALL_DOC = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  'docs',
  'install.md',
);

const PLACEHOLDERS = Object.fromEntries(
  APP_USERS.map((app) => [app, `<${app.toUpperCase()}_PASSWORD>`]),
) as Record<AppUser, string>;

/** A rule as redis-cli (interactive) and provider consoles take it: quoted unless plain. */
function quoted(arg: string): string {
  return /^[A-Za-z0-9@+\-_.:]+$/.test(arg) ? arg : `'${arg}'`;
}

/** The script loader's and the operations user's placeholders. */
const SERVICE_PLACEHOLDERS = { scripts: '<SCRIPTS_PASSWORD>', ops: '<OPS_PASSWORD>' };

export function setUserLines(scope: AclScope): string {
  const service: [string, string, string[]][] = [
    [SCRIPTS_USERNAME, SERVICE_PLACEHOLDERS.scripts, SCRIPTS_RULES],
    [OPS_USERNAME, SERVICE_PLACEHOLDERS.ops, OPS_RULES],
  ];
  return APP_USERS.map((app) =>
    ['ACL SETUSER', ...aclSetUserArgs(app, scope, PLACEHOLDERS[app]).map(quoted)].join(' '),
  )
    .concat(
      service.map(([name, password, rules]) =>
        ['ACL SETUSER', ...[name, 'reset', 'on', `>${password}`, ...rules].map(quoted)].join(' '),
      ),
    )
    .concat(['ACL SETUSER default off'])
    .join('\n');
}

/** The settings of k8s/, the chart and compose (QUEUE_PREFIX={podset}, a read-only dashboard). */
export const DOC_SCOPE: AclScope = { prefix: '{podset}', queueName: 'podset-reconcile' };

/** INSTALL_DOC text with its `<!-- redis-acl -->…<!-- /redis-acl -->` block regenerated. */
export function renderInstallDoc(text: string): string {
  const open = '<!-- redis-acl -->';
  const close = '<!-- /redis-acl -->';
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start) throw new Error(`docs/install.md lacks the ${open} … ${close} block`);
  const block = ['```text', setUserLines(DOC_SCOPE), '```'].join('\n');
  return `${text.slice(0, start + open.length)}\n${block}\n${text.slice(end)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      prefix: { type: 'string', default: DOC_SCOPE.prefix },
      queue: { type: 'string', default: DOC_SCOPE.queueName },
      'event-log-key': { type: 'string' },
      'dashboard-writes': { type: 'boolean', default: false },
      file: { type: 'boolean', default: false },
      docs: { type: 'boolean', default: false },
      check: { type: 'boolean', default: false },
    },
  });
  if (values.docs) {
    const current = readFileSync(INSTALL_DOC, 'utf8');
    const wanted = renderInstallDoc(current);
    if (values.check && wanted !== current) {
      process.stderr.write(
        'docs/install.md: its Redis ACL block is stale: run npm run redis-acl -- --docs\n',
      );
      process.exit(1);
    }
    if (!values.check && wanted !== current) writeFileSync(INSTALL_DOC, wanted);
  } else {
    const scope: AclScope = {
      prefix: values.prefix,
      queueName: values.queue,
      eventLogKey: values['event-log-key'],
      dashboardWrites: values['dashboard-writes'],
    };
    process.stdout.write(
      values.file ? aclFile(scope, PLACEHOLDERS, SERVICE_PLACEHOLDERS) : `${setUserLines(scope)}\n`,
    );
  }
}
