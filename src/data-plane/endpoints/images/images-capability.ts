import type { Capability } from '../../pipeline/capability.js';
import { MemoryImageStore, RedisImageStore, type ImageStore } from './image-store.js';
import { registerImageFileRoute } from './image-file-route.js';
import { IMAGE_FILES_PATH, createInlineImagesInterceptor } from './inline-images-to-urls.js';
import { UrlSigner, loadSigningKey, sharedSigningKey } from './url-signer.js';

/**
 * Image links: with `response_format: url` (the default), images a provider returns inline are kept
 * (in Redis when `REDIS_URL` is set, so every replica can serve them; else in a byte-bounded in-process
 * LRU) and answered as signed 60-minute links served by `GET /v1/images/files/{id}` without a gateway key.
 */
export const imagesCapability: Capability = {
  name: 'images',
  async create(core) {
    const { settings, state, clock } = core;
    const store: ImageStore = state.redis
      ? new RedisImageStore(state.redis, state.prefix)
      : new MemoryImageStore(settings.imageStoreMaxBytes);
    const redisKey = state.prefix + 'img:signing-key';
    let waitsForShared = false;
    const onRedisError = (err: unknown) => {
      waitsForShared = true;
      core.logger.warn(
        { err: (err as Error)?.message },
        "Redis unreachable at startup: image links are signed with this replica's own key until it connects",
      );
    };
    const key = await loadSigningKey({
      configured: settings.urlSigningKey,
      dataDir: settings.dataDir,
      redis: state.redis,
      redisKey,
      onRedisError,
    });
    const signer = new UrlSigner(key);
    const redis = state.redis;
    if (redis && waitsForShared) {
      // Once Redis answers, every replica signs with the shared key again; links signed meanwhile still verify here.
      const adoptShared = () => {
        sharedSigningKey(redis, redisKey).then(
          (shared) => {
            if (shared) signer.adopt(shared);
            redis.off('ready', adoptShared);
          },
          () => undefined,
        );
      };
      redis.on('ready', adoptShared);
    }
    const now = () => clock.now();
    return {
      interceptors: [createInlineImagesInterceptor({ store, signer, now, publicUrl: settings.publicUrl })],
      routes: (app) => registerImageFileRoute(app, store, signer, now),
      publicPaths: [IMAGE_FILES_PATH],
    };
  },
};
