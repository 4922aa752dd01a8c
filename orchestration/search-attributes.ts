// Kasi's search attributes on the namespace it runs in (orchestration/ids.ts sets them on every
// workflow): a server that does not know them refuses every workflow start that carries them.
// Checked at every start of a process that starts workflows; registered where the server lets
// Kasi do it (a development server, a self-hosted cluster), otherwise (PERMISSION_DENIED: an
// operator API behind an authorizer) the process refuses to start and names the command to run.
import { isGrpcServiceError } from '@temporalio/client';
import { ACCOUNT_ID_ATTRIBUTE, MODE_ATTRIBUTE } from './ids';

/** The search attributes Kasi sets on every workflow, all Keyword. */
export const KASI_SEARCH_ATTRIBUTES = [ACCOUNT_ID_ATTRIBUTE.name, MODE_ATTRIBUTE.name];

/** INDEXED_VALUE_TYPE_KEYWORD in Temporal's API (temporal.api.enums.v1.IndexedValueType). */
const KEYWORD = 2;
/** gRPC's status code PERMISSION_DENIED, as the operator service answers a caller that may not change the namespace. */
const PERMISSION_DENIED = 7;
/** gRPC's UNIMPLEMENTED: Temporal's time-skipping test server has no operator service (and takes any search attribute). */
const UNIMPLEMENTED = 12;

/** The two calls of Temporal's operator service (Connection.operatorService) this module makes. */
export interface SearchAttributeOperator {
  listSearchAttributes(request: { namespace: string }): Promise<{ customAttributes?: Record<string, unknown> | null }>;
  addSearchAttributes(request: { namespace: string; searchAttributes: Record<string, number> }): Promise<unknown>;
}

/** The Temporal CLI command that registers `names` on the namespace (what an operator runs when Kasi may not). */
function searchAttributesCommand(namespace: string, names: readonly string[], address?: string): string {
  const target = address === undefined ? '' : ` --address ${address}`;
  return `temporal operator search-attribute create${target} --namespace ${namespace} ${names.map((name) => `--name ${name}`).join(' ')} --type Keyword`;
}

/**
 * The namespace lacks Kasi's search attributes: at start, because the server does not let Kasi
 * register them (`denied`); while running, because they were removed (Kasi registers only at start).
 */
export class SearchAttributesMissingError extends Error {
  /** The same without the server's address, for an unauthenticated answer (/readyz). */
  readonly publicMessage: string;

  constructor(
    readonly namespace: string,
    readonly missing: readonly string[],
    address: string | undefined,
    options: { denied: boolean; cause?: unknown },
  ) {
    const say = (command: string) =>
      options.denied
        ? `the Temporal namespace ${namespace} lacks Kasi's search attributes ${missing.join(', ')} and Kasi may not register them (permission denied); register them (with your usual connection options), then start Kasi again: ${command}`
        : `the Temporal namespace ${namespace} lacks Kasi's search attributes ${missing.join(', ')}; register them (with your usual connection options): ${command}`;
    super(say(searchAttributesCommand(namespace, missing, address)), { cause: options.cause });
    this.name = 'SearchAttributesMissingError';
    this.publicMessage = say(searchAttributesCommand(namespace, missing));
  }
}

const denied = (err: unknown) => isGrpcServiceError(err) && err.code === PERMISSION_DENIED;

/** The names the namespace lacks; undefined from a server without an operator service (nothing to check there). */
async function missingOn(operator: SearchAttributeOperator, namespace: string, address: string | undefined): Promise<string[] | undefined> {
  let listed: Record<string, unknown>;
  try {
    listed = (await operator.listSearchAttributes({ namespace })).customAttributes ?? {};
  } catch (err) {
    // Nothing can be checked: the operator is told what Kasi needs.
    if (denied(err)) throw new SearchAttributesMissingError(namespace, KASI_SEARCH_ATTRIBUTES, address, { denied: true, cause: err });
    if (isGrpcServiceError(err) && err.code === UNIMPLEMENTED) return undefined;
    throw err;
  }
  return KASI_SEARCH_ATTRIBUTES.filter((name) => !(name in listed));
}

/** Throws SearchAttributesMissingError unless the namespace lists every one of Kasi's search attributes. */
export async function checkSearchAttributes(operator: SearchAttributeOperator, namespace: string, address?: string): Promise<void> {
  const missing = (await missingOn(operator, namespace, address)) ?? [];
  if (missing.length > 0) throw new SearchAttributesMissingError(namespace, missing, address, { denied: false });
}

/**
 * Registers whichever of Kasi's search attributes the namespace lacks and resolves once it lists
 * them all ('present' when nothing was missing; 'unchecked' on a server without an operator
 * service, Temporal's time-skipping test server). Throws SearchAttributesMissingError when the
 * server refuses (PERMISSION_DENIED). Safe when several processes start at once: one that finds
 * its registration beaten by another's sees them listed.
 */
export async function ensureSearchAttributes(
  operator: SearchAttributeOperator,
  options: { namespace: string; address?: string; timeoutMs?: number },
): Promise<'present' | 'registered' | 'unchecked'> {
  const { namespace, address } = options;
  const toAdd = await missingOn(operator, namespace, address);
  if (toAdd === undefined) return 'unchecked';
  if (toAdd.length === 0) return 'present';
  try {
    await operator.addSearchAttributes({ namespace, searchAttributes: Object.fromEntries(toAdd.map((name) => [name, KEYWORD])) });
  } catch (err) {
    if (denied(err)) throw new SearchAttributesMissingError(namespace, toAdd, address, { denied: true, cause: err });
    // Another process's registration of the same names ("already exists"): listed below.
    if ((await missingOn(operator, namespace, address))?.length !== 0) throw err;
  }
  // A server may list them a moment after it accepted them.
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const still = (await missingOn(operator, namespace, address)) ?? [];
    if (still.length === 0) return 'registered';
    if (Date.now() > deadline) throw new Error(`search attributes ${still.join(', ')} not listed on ${namespace} ${timeoutMs} ms after they were registered`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
