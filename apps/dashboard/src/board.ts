// bull-board for the reconcile queue, read-only unless configured otherwise (enforced by bull-board and,
// for its write routes, by the authentication middleware).
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Queue } from 'bullmq';

export const BOARD_PATH = '/queues';

export function createBoard(queue: Queue, opts: { readOnly: boolean; queueLabel: string }): HonoAdapter {
  const boardAdapter = new HonoAdapter(serveStatic);
  boardAdapter.setBasePath(BOARD_PATH);
  createBullBoard({
    queues: [
      new BullMQAdapter(queue, {
        readOnlyMode: opts.readOnly,
        allowRetries: !opts.readOnly,
        prefix: '',
        description: `PodSet reconcile requests (${opts.queueLabel}); job name = PodSet key`,
      }),
    ],
    serverAdapter: boardAdapter,
    options: {
      uiConfig: {
        boardTitle: 'PodSet queue',
        miscLinks: [{ text: 'PodSet overview', url: '/' }],
        hideDocsLink: true,
        // bull-board's badge takes the theme's text colour unless told: dark on this dark background.
        ...(opts.readOnly
          ? { environment: { label: 'read-only', color: '#1d2330', textColor: '#ffffff' } }
          : {}),
      },
    },
  });
  return boardAdapter;
}
