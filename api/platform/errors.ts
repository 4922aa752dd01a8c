// Turns every failure into the spec's error body {code, reason?, message, docUrl, traceId,
// fields?}. Unexpected errors are logged with the trace id and answered as INTERNAL, without
// detail.
import type { Next } from 'koa';
import type { Logger } from 'pino';
import { ApiError, errorAnchor } from '../../domain/errors';
import type { ApiContext } from './context';

export function errorBody(err: ApiError, docsUrl: string, traceId: string) {
  return {
    code: err.code,
    ...(err.reason ? { reason: err.reason } : {}),
    message: err.message,
    docUrl: `${docsUrl}#${errorAnchor(err.code, err.reason)}`,
    traceId,
    ...(err.fields ? { fields: err.fields } : {}),
  };
}

export function errorHandler(options: { docsUrl: string; log: Logger }) {
  return async (ctx: ApiContext, next: Next) => {
    try {
      await next();
    } catch (caught) {
      let err: ApiError;
      if (caught instanceof ApiError) {
        err = caught;
      } else {
        options.log.error({ err: caught, traceId: ctx.state.traceId, method: ctx.method, path: ctx.path }, 'request failed');
        err = new ApiError('INTERNAL', 'Something went wrong on our side. Retry the request with the same Idempotency-Key.');
      }
      ctx.status = err.status;
      for (const [name, value] of Object.entries(err.headers)) ctx.set(name, value);
      ctx.body = errorBody(err, options.docsUrl, ctx.state.traceId);
    }
  };
}
