import type { SignatureV4 } from '@smithy/signature-v4';
import type { Sha256 } from '@aws-crypto/sha256-js';
import type { EventStreamCodec } from '@smithy/eventstream-codec';
import type { fromUtf8, toUtf8 } from '@smithy/util-utf8';

/** The AWS libraries a Bedrock call uses: the SigV4 signer, SHA-256 and the event-stream codec. */
export interface BedrockSdk {
  SignatureV4: typeof SignatureV4;
  Sha256: typeof Sha256;
  EventStreamCodec: typeof EventStreamCodec;
  toUtf8: typeof toUtf8;
  fromUtf8: typeof fromUtf8;
}

let loading: Promise<BedrockSdk> | undefined;
let loaded: BedrockSdk | undefined;

/**
 * Loads the AWS libraries on the first Bedrock call (about 0.5 MB of source a gateway without
 * Bedrock targets never holds in memory). Every Bedrock request is built through
 * `signBedrockRequest`, which awaits this, so stream decoders created afterwards find them loaded.
 */
export function loadBedrockSdk(): Promise<BedrockSdk> {
  loading ??= Promise.all([
    import('@smithy/signature-v4'),
    import('@aws-crypto/sha256-js'),
    import('@smithy/eventstream-codec'),
    import('@smithy/util-utf8'),
  ]).then(
    ([sig, sha, codec, utf8]) => {
      loaded = {
        SignatureV4: sig.SignatureV4,
        Sha256: sha.Sha256,
        EventStreamCodec: codec.EventStreamCodec,
        toUtf8: utf8.toUtf8,
        fromUtf8: utf8.fromUtf8,
      };
      return loaded;
    },
    (err: unknown) => {
      loading = undefined;
      throw err;
    },
  );
  return loading;
}

/** The loaded libraries; throws when called before `loadBedrockSdk()` resolved (a programming error). */
export function bedrockSdk(): BedrockSdk {
  if (!loaded) throw new Error('Bedrock libraries used before loadBedrockSdk() resolved');
  return loaded;
}
