import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import type { ImageStore } from './image-store.js';
import { IMAGE_FILES_PATH } from './inline-images-to-urls.js';
import type { UrlSigner } from './url-signer.js';

const Params = Type.Object({ id: Type.String({ pattern: '^img_[A-Za-z0-9]+$' }) });
const Query = Type.Object(
  { expires: Type.String({ pattern: '^[0-9]{1,12}$' }), sig: Type.String({ minLength: 1, maxLength: 128 }) },
  { additionalProperties: true },
);

/**
 * `GET /v1/images/files/{id}?expires=…&sig=…`: serves a stored image without a gateway key; 403 with a
 * bad signature or after `expires`, 404 when the image is gone (evicted, or stored by a replica that
 * shares no store with this one).
 */
export function registerImageFileRoute(app: FastifyInstance, store: ImageStore, signer: UrlSigner, now: () => number): void {
  app.get(
    `${IMAGE_FILES_PATH}:id`,
    {
      config: { public: true },
      schema: {
        params: Params,
        querystring: Query,
        tags: ['data plane'],
        summary: 'Fetch a generated image through its signed link',
        security: [],
      },
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      const { expires, sig } = request.query as { expires: string; sig: string };
      const verdict = signer.verify(id, Number(expires), sig, now());
      if (verdict === 'bad') throw new GatewayError('forbidden', 'The image link signature is invalid.');
      if (verdict === 'expired') throw new GatewayError('forbidden', 'The image link has expired.');
      const image = await store.get(id);
      if (!image) throw new GatewayError('not_found', 'The image is no longer available.');
      const maxAge = Math.max(0, Number(expires) - Math.floor(now() / 1000));
      return reply.header('content-type', image.contentType).header('cache-control', `private, max-age=${maxAge}`).send(image.bytes);
    },
  );
}
