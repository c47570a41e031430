/**
 * Preloaded into the reference gateway (`node --import`): it listens on every interface by default,
 * and the bench must stay on loopback. Any TCP `listen` that names no host binds 127.0.0.1 instead.
 */
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function loopbackListen(...args) {
  const [first, second] = args;
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    if (second === undefined || second === null || typeof second === 'function' || typeof second === 'number') {
      const rest = args.slice(1).filter((a) => a !== undefined && a !== null);
      return listen.call(this, first, '127.0.0.1', ...rest);
    }
  } else if (first && typeof first === 'object' && first.path === undefined && first.host === undefined) {
    return listen.call(this, { ...first, host: '127.0.0.1' }, ...args.slice(1));
  }
  return listen.apply(this, args);
};
