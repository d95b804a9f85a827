# Gateway image; the same image also runs the platform sandbox (see docker-compose.yml).
# The gateway runs as the bundle scripts/build-gateway.ts makes (dist/): a few dozen files load
# faster than the thousand of the sources (docs/benchmark.md). The sandbox runs from its
# TypeScript sources (type stripping).

# Production dependencies only. The project's `node` dependency (a pinned Node binary for npm
# scripts, docs/production.md) is installed without its install script, so no binary is fetched:
# the image runs on the base image's Node 24. No other production dependency needs its install
# script to work, so none is run.
FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# The built gateway and the offline playground bundle (served only when PLAYGROUND is on). Install
# scripts are skipped: they would only fetch the pinned Node binary this stage does not need.
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
# The build scripts and what they import from scripts/ (test/deploy/dockerfile.test.ts keeps the list whole).
COPY scripts/build-playground.ts scripts/build-gateway.ts scripts/build-stamp.mjs ./scripts/
COPY playground/src ./playground/src
COPY src ./src
COPY sandbox ./sandbox
RUN node --disable-warning=ExperimentalWarning scripts/build-playground.ts \
  && node --disable-warning=ExperimentalWarning scripts/build-gateway.ts

FROM node:24-slim
# The admin listener (health, readiness, metrics) on all interfaces, so probes and scrapes reach it from
# outside the container; only the GraphQL port is meant for a public Service or load balancer.
ENV NODE_ENV=production HOST=0.0.0.0 PORT=4000 ADMIN_HOST=0.0.0.0 ADMIN_PORT=9090
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY schema ./schema
COPY --from=build /app/dist ./dist
# The sandbox's sources (and the gateway modules they share), for the sandbox service.
COPY src ./src
COPY sandbox ./sandbox
COPY --from=build /app/playground/dist ./playground/dist
# Files stay owned by root: the service user can read them but not change them.
USER node
EXPOSE 4000
# The admin listener: probes and Prometheus only.
EXPOSE 9090
# Liveness only; readiness (platform reachable, circuit closed) is /readyz, for orchestrators that route traffic.
# On the admin port, which a client holding every public connection (MAX_CONNECTIONS) cannot fill;
# on the GraphQL port only when ADMIN_PORT=off.
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "const p = process.env.ADMIN_PORT === 'off' ? process.env.PORT || 4000 : process.env.ADMIN_PORT || 9090; fetch('http://127.0.0.1:' + p + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--max-semi-space-size=16", "dist/main.js"]
