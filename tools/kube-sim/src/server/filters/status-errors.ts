// What any filter or handler throws becomes the response: a Status object with its code (500 for what the
// server did not expect), as the API server's handlers write their errors.
import { sendError } from '../../endpoints/request/response.ts';
import type { Filter } from './chain.ts';

export const withStatusErrors: Filter = async (ctx, next) => {
  try {
    await next();
  } catch (e) {
    sendError(ctx.res, e);
  }
};
