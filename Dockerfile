# The daemon with its Lean toolchain, REPL and environment projects built in (see README, "Scale-out").
# The same image runs every role: LEAN_TOOL_ROLE=front|worker|both, NATS_URL=nats://...
#
#   docker build -t lean-tool-service .                                   # core-only environment (minutes)
#   docker build --build-arg LEAN_ENVS="lean-4.28.0 core-4.28.0" -t ...   # with Mathlib (long, several GB)
FROM node:20-bookworm-slim

# git and curl for elan and Lake; bubblewrap is the REPL jail (see README, "The jail").
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl git bubblewrap \
 && rm -rf /var/lib/apt/lists/*

ENV ELAN_HOME=/opt/elan \
    PATH=/opt/elan/bin:$PATH
RUN curl -sSfL https://raw.githubusercontent.com/leanprover/elan/master/elan-init.sh \
    | sh -s -- -y --default-toolchain none --no-modify-path

WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .

# The toolchain, the REPL at the matching tag and each environment's Lake project, at build
# time, so a container starts warm-able in seconds. Writes config/local.json (repl_command).
ARG LEAN_ENVS=core-4.28.0
RUN npm run lean:setup -- ${LEAN_ENVS}

ENV HOST=0.0.0.0 \
    PORT=8080 \
    LEAN_TOOL_ROLE=both
EXPOSE 8080
# SIGTERM drains (config server.drainTimeoutMs); a worker stops pulling and finishes its jobs.
STOPSIGNAL SIGTERM
CMD ["node", "--import", "tsx", "src/main.ts"]
