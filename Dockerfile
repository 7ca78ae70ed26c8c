# syntax=docker/dockerfile:1
# Production image of the landing page: built in stages, run by the unprivileged `node` user.
# Node's version agrees with "engines" in package.json.

# node_modules and npm's download cache live in build caches, never in a layer: committing the
# 1,142 packages of the build's tools as a layer took longer than installing them. Needs BuildKit
# (Docker's default builder since 23.0) or Buildah/Podman.
FROM node:24.21.0-bookworm-slim AS build
WORKDIR /app
COPY . .
RUN --mount=type=cache,id=prevly-build-modules,target=/app/node_modules \
    --mount=type=cache,id=prevly-npm,target=/root/.npm \
    npm ci --no-audit --no-fund && npm run build

FROM node:24.21.0-bookworm-slim AS production-deps
WORKDIR /app
COPY package.json package-lock.json ./
# Peer and optional packages (typescript, text-encoding polyfills) are build-time or unused by Node 24.
RUN --mount=type=cache,id=prevly-npm,target=/root/.npm \
    npm ci --omit=dev --omit=peer --omit=optional --no-audit --no-fund

FROM node:24.21.0-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    SIGNUPS_FILE=/app/data/signups.jsonl
WORKDIR /app
# Code and dependencies stay owned by root: the server can read them, not change them.
COPY --from=production-deps /app/node_modules ./node_modules
COPY --from=build /app/build ./build
COPY --from=build /app/public ./public
COPY package.json ./
# The only writable place: the JSON-lines sink used when no webhook is configured. npm and
# corepack are not used at run time: removing them keeps their advisories out of the image.
RUN mkdir -p /app/data && chown node:node /app/data \
 && rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
           /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack
VOLUME ["/app/data"]
USER node
EXPOSE 3000
# Slim images have no curl: Node asks /healthz itself.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form and no npm in between, so SIGTERM reaches the server and it can stop gracefully.
CMD ["node", "node_modules/@remix-run/serve/dist/cli.js", "build/index.js"]
