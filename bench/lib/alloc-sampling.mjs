/**
 * A preload that samples where a process allocates (V8's sampling heap profiler, every object, the ones
 * minor and major GCs collected included) for a window of its life and counts the HTTP requests its
 * servers received meanwhile, so the profile reads as bytes per request:
 *
 *   NODE_OPTIONS="--import ./bench/lib/alloc-sampling.mjs" BENCH_ALLOC=1 node ...
 *
 * BENCH_ALLOC=1 turns it on in that process (set it only in the environment of the process to sample:
 * `BENCH_OURS_ENV='{"BENCH_ALLOC":"1"}'` for our gateway under `bench/run.mjs`); BENCH_ALLOC_START_S (8)
 * seconds after start the sampling begins, for BENCH_ALLOC_LEN_S (4) seconds (choose them so that the window
 * falls inside the target's measured load), every BENCH_ALLOC_INTERVAL bytes (1024). BENCH_ALLOC_MINOR=0 leaves
 * out the objects minor GCs collected: what is left outlived the young generation (promoted, then collected by a
 * major GC or still alive), the objects that make the old generation grow. The profile is written to
 * `bench/results/alloc/<script>-<pid>-<requests>.heapprofile`; `node bench/lib/alloc-summary.mjs <file>`
 * prints the bytes per request by allocating function.
 */
import inspector from 'node:inspector';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const env = process.env;
if (env.BENCH_ALLOC === '1') {
  const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'results', 'alloc');
  const session = new inspector.Session();
  session.connect();
  const post = (method, params = {}) =>
    new Promise((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));
  let counting = false;
  let requests = 0;
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (event, ...args) {
    if (counting && event === 'request') requests++;
    return emit.call(this, event, ...args);
  };
  const start = Number(env.BENCH_ALLOC_START_S ?? 8) * 1000;
  const length = Number(env.BENCH_ALLOC_LEN_S ?? 4) * 1000;
  setTimeout(async () => {
    await post('HeapProfiler.enable');
    await post('HeapProfiler.startSampling', {
      samplingInterval: Number(env.BENCH_ALLOC_INTERVAL ?? 1024),
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: env.BENCH_ALLOC_MINOR !== '0',
    });
    counting = true;
    setTimeout(async () => {
      counting = false;
      const { profile } = await post('HeapProfiler.stopSampling');
      mkdirSync(out, { recursive: true });
      writeFileSync(join(out, `${basename(process.argv[1] ?? 'node')}-${process.pid}-${requests}.heapprofile`), JSON.stringify(profile));
    }, length).unref();
  }, start).unref();
}
