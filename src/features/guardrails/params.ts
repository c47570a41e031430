/**
 * Parameter readers for checks. Every failure is a GatewayError('invalid_config') whose message and
 * `param` name the parameter as `${path}.${name}`. Unknown parameters are ignored.
 */
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject } from '../../foundation/lib/json.js';

/** Reads one check's parameter object. */
export class ParamReader {
  readonly params: Record<string, unknown>;

  constructor(
    params: unknown,
    readonly path: string,
  ) {
    if (params === undefined || params === null) this.params = {};
    else if (isObject(params)) this.params = params;
    else throw new GatewayError('invalid_config', `${path}: parameters must be an object`, { param: path });
  }

  /** Throws the invalid_config error for `name`. */
  fail(name: string, message: string): never {
    const param = `${this.path}.${name}`;
    throw new GatewayError('invalid_config', `${param}: ${message}`, { param });
  }

  has(name: string): boolean {
    return this.params[name] !== undefined && this.params[name] !== null;
  }

  string(name: string, opts: { required: true; nonEmpty?: boolean }): string;
  string(name: string, opts?: { required?: false; nonEmpty?: boolean }): string | undefined;
  string(name: string, opts: { required?: boolean; nonEmpty?: boolean } = {}): string | undefined {
    const v = this.params[name];
    if (v === undefined || v === null) {
      if (opts.required) this.fail(name, 'is required');
      return undefined;
    }
    if (typeof v !== 'string') this.fail(name, 'must be a string');
    if (opts.nonEmpty && v.length === 0) this.fail(name, 'must not be empty');
    return v;
  }

  bool(name: string, fallback: boolean): boolean {
    const v = this.params[name];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'boolean') this.fail(name, 'must be a boolean');
    return v;
  }

  /** A whole number in [min, max]; `fallback` when absent. */
  int(name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
    const v = this.params[name];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'number' || !Number.isInteger(v)) this.fail(name, 'must be a whole number');
    if (v < min || v > max) this.fail(name, `must be between ${min} and ${max}`);
    return v;
  }

  /** One of `values`; `fallback` when absent. */
  oneOf<T extends string>(name: string, values: readonly T[], fallback: T): T {
    const v = this.params[name];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) {
      this.fail(name, `must be one of ${values.join(', ')}`);
    }
    return v as T;
  }

  /** A non-empty array of non-empty strings. */
  stringArray(name: string): string[] {
    const v = this.params[name];
    if (v === undefined || v === null) this.fail(name, 'is required');
    if (!Array.isArray(v) || v.length === 0) this.fail(name, 'must be a non-empty array of strings');
    v.forEach((item, i) => {
      if (typeof item !== 'string' || item.length === 0) this.fail(`${name}[${i}]`, 'must be a non-empty string');
    });
    return v as string[];
  }

  /** A JSON object; `undefined` when absent and not required. */
  object(name: string, required: boolean): Record<string, unknown> | undefined {
    const v = this.params[name];
    if (v === undefined || v === null) {
      if (required) this.fail(name, 'is required');
      return undefined;
    }
    if (!isObject(v)) this.fail(name, 'must be an object');
    return v;
  }

  /** Checks `min <= max` for a pair of bounds. */
  ordered(minName: string, min: number, maxName: string, max: number): void {
    if (min > max) this.fail(maxName, `must be greater than or equal to ${minName}`);
  }
}
