import type { Capability } from '../gateway/capability.js';
import { MemoryImageStore, RedisImageStore, type ImageStore } from './image-store.js';
import { registerImageFileRoute } from './image-file-route.js';
import { IMAGE_FILES_PATH, createInlineImagesInterceptor } from './inline-images-to-urls.js';
import { UrlSigner, loadSigningKey } from './url-signer.js';

/**
 * Image links: with `response_format: url` (the default), images a provider returns inline are kept
 * (in Redis when `REDIS_URL` is set, so every replica can serve them; else in a byte-bounded in-process
 * LRU) and answered as signed 60-minute links served by `GET /v1/images/files/{id}` without a gateway key.
 */
export const imagesCapability: Capability = {
  name: 'images',
  async create(core) {
    const { settings, state, clock } = core;
    const store: ImageStore = state.redis ? new RedisImageStore(state.redis, state.prefix) : new MemoryImageStore(settings.imageStoreMaxBytes);
    const key = await loadSigningKey({ configured: settings.urlSigningKey, dataDir: settings.dataDir, redis: state.redis, redisKey: state.prefix + 'img:signing-key' });
    const signer = new UrlSigner(key);
    const now = () => clock.now();
    return {
      interceptors: [createInlineImagesInterceptor({ store, signer, now, publicUrl: settings.publicUrl })],
      routes: (app) => registerImageFileRoute(app, store, signer, now),
      publicPaths: [IMAGE_FILES_PATH],
    };
  },
};
