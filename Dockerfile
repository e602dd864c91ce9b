# The daemon with its Lean toolchain, REPL and environment projects built in (docs/deployment.md).
# The same image runs every role: LEAN_TOOL_ROLE=front|worker|both, NATS_URL=nats://...
#
#   docker build -t lean-tool-service:0.1.0 .                                   # core-only environment (minutes)
#   docker build --build-arg LEAN_ENVS="lean-4.28.0 core-4.28.0" -t ...        # with Mathlib (long, several GB)
#
# Four stages: `build` bundles the daemon (dist/, esbuild); `deps` installs the production
# packages only; `lean` builds the toolchains, the REPL, the environment projects, comparator
# and landrun (Go); the final image holds only what runs, as an unprivileged user.
# Base images are pinned by exact version (bump them together with .nvmrc / CI).
ARG NODE_IMAGE=node:20.19.5-bookworm-slim
ARG GO_IMAGE=golang:1.24.4-bookworm

# --- build: the bundle (dist/main.js, dist/structural-worker.js) ---------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build
# V8's code cache for the bundle (dist/daemon.cjs.cache): the final image's dist/ is read-only to
# the daemon, so it is written here, by one start of the built daemon, on the same Node image.
RUN node scripts/warm-code-cache.mjs

# --- deps: production node_modules (the bundle keeps swagger and piscina external) ---------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

# --- lean: toolchains (elan), REPL, environment projects, comparator, landrun --------------
FROM ${GO_IMAGE} AS go
FROM build AS lean
# git and curl for elan and Lake; Go for landrun (lean/comparator-setup.ts builds it).
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl git \
 && rm -rf /var/lib/apt/lists/*
COPY --from=go /usr/local/go /usr/local/go
ENV ELAN_HOME=/opt/elan \
    PATH=/opt/elan/bin:/usr/local/go/bin:$PATH
RUN curl -sSfL https://raw.githubusercontent.com/leanprover/elan/master/elan-init.sh \
    | sh -s -- -y --default-toolchain none --no-modify-path
# At build time, so a container starts warm-able in seconds. Writes config/local.json (repl_command).
ARG LEAN_ENVS=core-4.28.0
RUN npm run lean:setup -- ${LEAN_ENVS}

# --- runtime ---------------------------------------------------------------------------------
FROM ${NODE_IMAGE}
# bubblewrap is the REPL jail (docs/deployment.md: the container needs unprivileged user namespaces).
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates bubblewrap \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 lean \
 && useradd --system --uid 10001 --gid lean --home-dir /app --shell /usr/sbin/nologin lean
WORKDIR /app
ENV ELAN_HOME=/opt/elan \
    PATH=/opt/elan/bin:$PATH \
    NODE_ENV=production
# The daemon's code is root-owned, read-only to it. The toolchains and Lake projects belong to
# `lean`: elan and `lake exe repl` may write lock and build-trace files under them.
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --from=lean --chown=root:root /app/package.json ./package.json
COPY --from=lean --chown=root:root /app/config ./config
COPY --from=lean --chown=lean:lean /opt/elan /opt/elan
COPY --from=lean --chown=lean:lean /app/lean ./lean
USER 10001:10001

# The commit in every response's info._executor_commit_sha (.git is not copied in):
#   docker build --build-arg COMMIT=$(git rev-parse HEAD) ...
ARG COMMIT=
ENV HOST=0.0.0.0 \
    PORT=8080 \
    LEAN_TOOL_ROLE=both \
    LEAN_TOOL_COMMIT=${COMMIT}
EXPOSE 8080
# Liveness only (the process answers HTTP); orchestrators route by /health/ready (docs/deployment.md).
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM drains (config server.drainTimeoutMs); a worker stops pulling and finishes its jobs.
STOPSIGNAL SIGTERM
CMD ["node", "dist/main.js"]
