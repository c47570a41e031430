/** `count_tokens`, `api-keys`, `makeDefault` → `CountTokens`, `ApiKeys`, `MakeDefault`. */
function pascal(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}

/**
 * The OpenAPI `operationId` of a route, derived from its method and path alone, so it is stable across
 * runs and releases and unique (a method and a path name one route): the method in lower case, then each
 * path segment after `/v1` in PascalCase, a parameter as `By<Name>` (a wildcard as `ByPath`).
 * `GET /v1/api-keys` → `getApiKeys`, `POST /v1/api-keys/:id/rotate` → `postApiKeysByIdRotate`,
 * `POST /v1/chat/completions` → `postChatCompletions`, `GET /v1/models/*` → `getModelsByPath`.
 */
export function operationIdOf(method: string, url: string): string {
  const segments = url.split('/').filter(Boolean);
  const named = segments[0] === 'v1' ? segments.slice(1) : segments;
  const parts = named.map((s) => {
    if (s === '*') return 'ByPath';
    const param = /^[:{]([^}]+)}?$/.exec(s);
    return param ? `By${pascal(param[1]!)}` : pascal(s);
  });
  return method.toLowerCase() + parts.join('');
}
