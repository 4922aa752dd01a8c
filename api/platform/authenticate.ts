// Authentication and authorisation, exactly per the spec: the key comes from
// `Authorization: Bearer <key>` only (never the query string or body; Basic is refused), the
// mode comes from the key, and each route names the key kinds and the permission it needs.
import type { Next } from 'koa';
import { holdsPermission, parseKeyShape } from '../../domain/api-keys';
import { ApiError } from '../../domain/errors';
import type { Clock } from '../../domain/clock';
import type { ActiveKeys } from '../../db/active-key-cache';
import { accountRefusal } from '../../domain/account-rules';
import type { ApiContext } from './context';
import { isWrite, type RouteSpec } from './route';

/** The token of a well-formed header: the scheme (case-insensitive, RFC 7235), one space, one token. */
function bearerToken(header: string): string | null {
  const match = /^bearer ([^\s]+)$/i.exec(header);
  return match ? (match[1] as string) : null;
}

export function authenticate(route: RouteSpec, deps: { activeKeys: ActiveKeys; clock: Clock }) {
  return async (ctx: ApiContext, next: Next) => {
    if (route.auth === 'public') return next();
    const header = ctx.get('authorization');
    if (ctx.headers.authorization === undefined) {
      throw new ApiError('missing_api_key', 'Send your API key in the header `Authorization: Bearer <API_KEY>`.');
    }
    const token = bearerToken(header);
    const shape = token === null ? null : parseKeyShape(token);
    if (token === null || shape === null) {
      throw new ApiError('malformed_api_key', 'The Authorization header must be `Bearer` followed by one API key (sk_, pk_ or ak_, then test_ or live_, then 32 letters and digits).');
    }
    const found = await deps.activeKeys.find(token, deps.clock.now());
    if (!found) {
      throw new ApiError('unknown_api_key', 'No active API key matches: it may have been revoked, be past its end date, or belong to another environment.');
    }
    const allowedKinds = route.auth.kinds ?? ['secret'];
    if (!allowedKinds.includes(found.key.kind)) {
      const which = found.key.kind === 'agent'
        ? 'Agent keys work only on the MCP endpoint.'
        : found.key.kind === 'publishable'
          ? 'Publishable keys may only create checkouts (POST /v1/checkouts).'
          : 'Use a publishable key here.';
      throw new ApiError('key_not_permitted', `${which} Use a secret key on the server.`);
    }
    const { permission } = route.auth;
    if (permission !== undefined && !holdsPermission(found.key.permissions, permission)) {
      throw new ApiError('key_not_permitted', permission === 'all'
        ? `${route.method} ${route.path} needs a secret key that holds every permission; this key is restricted.`
        : `This key lacks the permission ${permission} that ${route.method} ${route.path} needs.`);
    }
    const { account } = found;
    if (isWrite(route.method)) {
      const refusal = accountRefusal(account, found.key.mode);
      if (refusal !== null) throw refusal;
    }
    ctx.state.caller = { account, keyId: found.key.id, kind: found.key.kind, mode: found.key.mode };
    return next();
  };
}
