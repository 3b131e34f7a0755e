# syntax=docker/dockerfile:1
# Dragoman in one image. Three stages on the same Debian-slim Node 20 base:
#   build   – installs all dependencies, compiles TypeScript to dist/, then drops the dev dependencies;
#   models  – optional: `--build-arg MODELS="opus-mt-en-de nllb"` pulls models on the (connected) builder;
#   runtime – dist/ + production node_modules + the baked models, as a non-root user. Nothing is downloaded at run
#             time: without baked models, mount a models folder at /models (see docs/container.md).
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary fits the platform.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
# onnxruntime-node ships its CPU binaries in the package; skip its optional CUDA download.
ENV ONNXRUNTIME_NODE_INSTALL=skip \
    ONNXRUNTIME_NODE_INSTALL_CUDA=skip
COPY package.json package-lock.json .npmrc ./
# npm ci runs the package's install script, which compiles the AMX guard (src/engine/amx.ts) in place.
COPY scripts/build-amx-guard.mjs ./scripts/
COPY src/engine/amx-guard ./src/engine/amx-guard
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/copy-build-assets.mjs scripts/bundle-page.ts ./scripts/
COPY src ./src
COPY bin ./bin
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && rm -rf src tsconfig.json tsconfig.build.json scripts

FROM build AS models
ARG MODELS=""
ARG MODELS_PRECISION=int8
ENV DRAGOMAN_MODELS_DIR=/models
# HF_TOKEN (gated/private repositories) comes in as a build secret so it never lands in a layer:
#   docker build --secret id=hf_token,env=HF_TOKEN --build-arg MODELS="opus-mt-en-de nllb" .
RUN --mount=type=secret,id=hf_token,required=false \
    mkdir -p /models \
 && for model in ${MODELS}; do \
      HF_TOKEN="$(cat /run/secrets/hf_token 2>/dev/null || true)" \
        node bin/dragoman.js models pull "${model}" --precision "${MODELS_PRECISION}" || exit 1; \
    done \
 && node bin/dragoman.js models list

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    DRAGOMAN_HOST=0.0.0.0 \
    DRAGOMAN_PORT=8080 \
    DRAGOMAN_DATA_DIR=/data \
    DRAGOMAN_MODELS_DIR=/models
WORKDIR /app
RUN groupadd --system --gid 10001 dragoman \
 && useradd --system --uid 10001 --gid dragoman --home-dir /app --shell /usr/sbin/nologin dragoman \
 && mkdir -p /data /models \
 && chown dragoman:dragoman /data /models
# Code and dependencies stay owned by root: the service user can write only /data (and /models, for imports).
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY --from=models --chown=dragoman:dragoman /models /models
USER dragoman
EXPOSE 8080
VOLUME ["/data", "/models"]
# node, not curl: the slim image has no curl, and the check must need nothing that is not already there.
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.DRAGOMAN_PORT||8080)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM: stop accepting, finish in-flight requests (DRAGOMAN_SHUTDOWN_TIMEOUT_MS), close the database, exit 0.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["serve"]
