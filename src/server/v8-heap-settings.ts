import v8 from 'node:v8';

/** The V8 option this module turns off, as an operator would name it on the command line. */
export const PRETENURING_FLAG = 'allocation-site-pretenuring';

/**
 * Whether the operator chose V8's allocation-site pretenuring themselves (`--allocation-site-pretenuring` or
 * `--no-allocation-site-pretenuring` on node's command line; Node refuses the flag in `NODE_OPTIONS`): then
 * their choice stands.
 */
export function operatorChosePretenuring(execArgv: readonly string[]): boolean {
  return execArgv.some((a) => a.includes(PRETENURING_FLAG));
}

/**
 * Turns off V8's allocation-site pretenuring for this process, unless the operator chose it; returns whether
 * it did. `main.ts` calls it before it imports the gateway's modules: Node's module loader allocates too, and
 * while it loads the gateway's modules V8 would otherwise tenure some of its literals.
 *
 * Why: V8 watches each object and array literal; when ~85% of a literal's objects survive a young-generation
 * collection it allocates that literal's later objects straight in the old generation. Start-up (migrations,
 * schemas, the runtime snapshot) keeps nearly everything it allocates, so literals that the request path
 * shares with start-up code are switched to the old generation for good. Each request's objects from those
 * literals then point at its young objects, and a young object pointed at from the old generation survives
 * every young collection until a full one finds the old object dead: the whole request is promoted. Measured
 * at 32 connections (`bench/README.md`): ~1.1 kB promoted per request against the floor's ~0.1 kB, young
 * collections twice as long, the old generation filling with garbage between full collections; without
 * pretenuring ours promotes what the floor does, with more requests per second and a lower memory high-water.
 */
export function disablePretenuring(execArgv: readonly string[] = process.execArgv): boolean {
  if (operatorChosePretenuring(execArgv)) return false;
  v8.setFlagsFromString(`--no-${PRETENURING_FLAG}`);
  return true;
}
