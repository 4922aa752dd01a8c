// The port over the embedded engine (one machine, not durable by itself: see workers/).
import type { EmbeddedEngine } from '../workers/embedded-engine/engine';
import { WorkflowClosedError } from './errors';
import { searchAttributesFor } from './ids';
import { messageName, type OrchestrationPort, type WorkflowStart } from './port';

export function createEmbeddedPort(engine: EmbeddedEngine): OrchestrationPort {
  const toEngine = (start: WorkflowStart) => ({
    workflowType: start.workflowType,
    workflowId: start.workflowId,
    args: start.args,
    searchAttributes: searchAttributesFor(start.accountId, start.mode),
    idReusePolicy: start.idReuse,
  });
  return {
    engine: 'embedded',
    async start(start) {
      return { workflowId: start.workflowId, ...engine.start(toEngine(start)) };
    },
    async signal(workflowId, signal, args) {
      await engine.signal(workflowId, messageName(signal), args ?? []);
    },
    async signalWithStart(start, signal, signalArgs) {
      const { runId } = await engine.signalWithStart(toEngine(start), messageName(signal), signalArgs ?? []);
      return { workflowId: start.workflowId, runId };
    },
    query(workflowId, queryType, args = []) {
      return engine.query(workflowId, queryType, args);
    },
    update(workflowId, update, args) {
      return engine.update(workflowId, messageName(update), args);
    },
    async cancel(workflowId) {
      try {
        await engine.cancel(workflowId);
      } catch (err) {
        if (!(err instanceof WorkflowClosedError)) throw err;
      }
    },
    async describe(workflowId) {
      const description = engine.describe(workflowId);
      if (description === undefined) return undefined;
      const { runId, workflowType, status, startTime, closeTime } = description;
      return { workflowId, runId, workflowType, status, startTime, closeTime };
    },
  };
}
