# The gateway's container image (docs/deployment.md, "Container image").
#
# Build in a checkout where `npm run build` has run (dist/ and console/dist/ are copied, not compiled here):
#   docker build --build-arg GIT_COMMIT=$(git rev-parse HEAD) -t ai-gateway .
# NODE_IMAGE selects the base: any Debian 12 image with Node.js 20 and npm 10 in /usr/local/bin (and Node's
# headers in /usr/local/include/node, used to compile better-sqlite3 when no prebuilt binary can be fetched).
ARG NODE_IMAGE=node:20-bookworm-slim

# Stage 1: production dependencies only, with better-sqlite3 compiled against this Node.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY console/package.json console/
# No lifecycle scripts (the root's `prepare` builds from sources the image does not hold); the one native
# addon is then compiled from source against the base's headers (no prebuilt download). Type declarations,
# source maps and Markdown are not needed to run.
ENV npm_config_nodedir=/usr/local npm_config_build_from_source=true npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
RUN npm ci --omit=dev --ignore-scripts \
 && npm rebuild better-sqlite3 \
 && rm -rf node_modules/better-sqlite3/build/Release/obj node_modules/better-sqlite3/build/Release/.deps node_modules/better-sqlite3/deps node_modules/better-sqlite3/src \
 && find node_modules -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' -o -name '*.md' \) -delete \
 && npm cache clean --force

# Stage 2: the runtime. Node runs as PID 1 and handles SIGTERM itself (drain, exit 0).
FROM ${NODE_IMAGE}
ARG GIT_COMMIT=unknown
ENV GATEWAY_COMMIT=${GIT_COMMIT} HOST=0.0.0.0 PORT=8787 GATEWAY_DATA_DIR=/data NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY dist ./dist
COPY console/dist ./console/dist
RUN mkdir -p /data && chown 10001:10001 /data && chmod 0700 /data
USER 10001:10001
VOLUME /data
EXPOSE 8787
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8787) + '/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "dist/cli.js"]
CMD ["serve"]
