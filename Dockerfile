# syntax=docker/dockerfile:1
# obsync daemon image: `obsync run` reconciling /manifests. State, backups and locks live under
# /var/lib/obsync (a volume): state in /var/lib/obsync/state, backups below it in /var/lib/obsync/state/backups.
#
# Base: Node 24 LTS (it bundles undici 7, the major obsync pins), pinned by exact version and by
# digest; update both together (Renovate and Dependabot do). test/deploy/container.test.ts runs
# these stages' steps without Docker and checks the rules written here.

# 1. Compile TypeScript (dev dependencies; scripts off: prepare would build before src/ is here).
FROM node:24.18.1-alpine3.24@sha256:f70403e87646dc51b45295f4b8b70cdad0b63d2297c4c9899119b03f7af7a6b3 AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/copy-assets.js ./scripts/
COPY src ./src
RUN npm run build

# 2. Runtime dependencies only, from the lockfile (prepare skips the build: no compiler here).
FROM node:24.18.1-alpine3.24@sha256:f70403e87646dc51b45295f4b8b70cdad0b63d2297c4c9899119b03f7af7a6b3 AS runtime-deps
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY scripts ./scripts
RUN npm ci --omit=dev --no-audit --no-fund

# 3. The image: compiled code and runtime dependencies, run as the unprivileged `node` user (uid 1000).
FROM node:24.18.1-alpine3.24@sha256:f70403e87646dc51b45295f4b8b70cdad0b63d2297c4c9899119b03f7af7a6b3
# OCI annotations (registries link the source and show the version and licence): package.json's
# repository, version and license, kept equal by test/deploy/container.test.ts. A CI build adds
# `--label org.opencontainers.image.revision=$(git rev-parse HEAD)` and `.created`.
LABEL org.opencontainers.image.title="obsync" \
      org.opencontainers.image.description="GitOps reconciler for observability configuration" \
      org.opencontainers.image.source="https://github.com/obsync/obsync" \
      org.opencontainers.image.version="0.1.0" \
      org.opencontainers.image.licenses="Apache-2.0"
ENV NODE_ENV=production \
    OBSYNC_STATE_DIR=/var/lib/obsync/state \
    OBSYNC_LISTEN=0.0.0.0:9464 \
    OBSYNC_URL_OUT=/var/lib/obsync/served-url
WORKDIR /app
COPY --from=runtime-deps /app/package.json ./
COPY --from=runtime-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir -p /manifests /var/lib/obsync && chown 1000:1000 /var/lib/obsync
# Numeric, so Kubernetes can check runAsNonRoot against the image.
USER 1000:1000
VOLUME ["/var/lib/obsync"]
EXPOSE 9464
# Probes the address the running daemon serves, as it recorded it in OBSYNC_URL_OUT, so a
# `--listen` given to `docker run` (or a changed OBSYNC_LISTEN) is followed.
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s CMD ["node", "dist/cli/healthcheck.js"]
# Exec form: node is PID 1 and handles SIGTERM itself (not ready, finish or abort the run, exit within 10 s).
ENTRYPOINT ["node", "dist/cli/main.js", "run"]
CMD ["/manifests"]
