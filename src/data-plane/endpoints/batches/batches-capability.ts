import type { Capability } from '../../pipeline/capability.js';
import { gatewayFilesOf } from '../files/files-capability.js';
import { ResourceForwarder } from '../files/provider-resource.js';
import { batchLineInterceptor } from './batch-line-dispatch.js';
import { BatchWorker, batchWorkerOptions, type BatchWorkerOptions } from './batch-worker.js';
import { registerBatchesRoutes } from './batches-routes.js';

/**
 * Batches (issue 10): `/v1/batches` forwarded to a provider's batch API, or run by the gateway's
 * background worker (started after the app listens, stopped on close). Its leaf interceptor records
 * each batch line's send and adds the line's `Idempotency-Key` to it.
 * @see https://platform.openai.com/docs/api-reference/batch
 */
export function batchesCapability(opts: Partial<BatchWorkerOptions> = {}): Capability {
  return {
    name: 'batches',
    create(core) {
      const files = gatewayFilesOf(core.settings, core.store, core.clock);
      let worker: BatchWorker | undefined;
      return {
        interceptors: [batchLineInterceptor()],
        routes(app, deps) {
          registerBatchesRoutes(app, deps, { files, forwarder: new ResourceForwarder(deps), poke: () => worker?.poke() });
        },
        async start(deps) {
          worker = new BatchWorker(deps, files, new ResourceForwarder(deps), { ...batchWorkerOptions(), ...opts });
          await worker.start();
        },
        async close() {
          await worker?.close();
        },
      };
    },
  };
}
