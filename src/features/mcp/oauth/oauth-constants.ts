/** Where the upstream's authorization server sends the user back (public: a browser redirect). */
export const MCP_OAUTH_CALLBACK_PATH = '/v1/mcp/oauth/callback';

/** An access token is refreshed this long before it expires. */
export const REFRESH_AHEAD_MS = 60_000;
