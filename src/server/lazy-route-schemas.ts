import { SerializerSelector, type RouteDefinition, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';
import type { Ajv } from 'ajv';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';

/** A route's schema compilation, deferred: run on the route's first use, or all at once by `compileRouteSchemasNow`. */
type Pending = () => unknown;

const pendingByApp = new WeakMap<FastifyInstance, Pending[]>();

/**
 * Route schemas compiled on each route's first use instead of at start-up. Fastify compiles every route's
 * validators (Ajv) and response serializers (fast-json-stringify) when the app becomes ready: ~900 generated
 * functions for the admin API, which a data-plane replica mostly never calls. Compiled eagerly they held
 * ~20 MB of heap and ~45 MB of RSS for the process's lifetime, and the old generation V8 sizes from the live
 * heap grows with them under load. Compiled lazily, a route pays its compilation once, on its first request.
 *
 * Answers the Fastify option (`schemaController`) and the validator compiler to install (`ajvFor` picks the
 * Ajv instance of a request part), and `adopt(app)` to make the app's deferrals reachable by
 * `compileRouteSchemasNow`; the serializers are Fastify's own (`@fastify/fast-json-stringify-compiler`, the
 * same options), only deferred.
 */
export function lazyRouteSchemas(ajvFor: (httpPart: string | undefined) => Ajv): {
  schemaController: NonNullable<FastifyServerOptions['schemaController']>;
  validatorCompiler: (route: { schema: object; httpPart?: string }) => (data: unknown) => boolean;
  adopt(app: FastifyInstance): void;
} {
  const pending: Pending[] = [];
  const defer = <F>(compile: () => F): (() => F) => {
    let compiled: F | undefined;
    const get = () => (compiled ??= compile());
    pending.push(get);
    return get;
  };
  const buildSerializer = SerializerSelector();
  return {
    schemaController: {
      compilersFactory: {
        buildSerializer(...args: Parameters<SerializerFactory>) {
          const compile = buildSerializer(...args);
          return (route: RouteDefinition) => {
            const get = defer(() => compile(route));
            return (data: unknown) => get()(data);
          };
        },
      },
    },
    validatorCompiler({ schema, httpPart }) {
      const get = defer(() => ajvFor(httpPart).compile(schema));
      // Fastify reads a failed validation's `errors` from the function it was given.
      const validate = (data: unknown): boolean => {
        const compiled = get();
        const ok = compiled(data) as boolean;
        validate.errors = compiled.errors;
        return ok;
      };
      validate.errors = undefined as unknown;
      return validate;
    },
    adopt(app) {
      pendingByApp.set(app, pending);
    },
  };
}

/** Compiles every route schema of `app` not compiled yet (tests: every schema must compile). */
export function compileRouteSchemasNow(app: FastifyInstance): number {
  const pending = pendingByApp.get(app) ?? [];
  for (const compile of pending) compile();
  return pending.length;
}
