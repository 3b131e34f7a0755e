# syntax=docker/dockerfile:1
# Dragoman in one image. Three stages on the same Debian-slim Node 24 LTS base:
#   build   – installs all dependencies, compiles TypeScript to dist/, then keeps production dependencies only, with
#             onnxruntime's binaries for this platform alone;
#   models  – optional: `--build-arg MODELS="opus-mt-en-de nllb"` pulls models on the (connected) builder;
#   runtime – dist/ + production node_modules + the baked models, as a non-root user. No compiler, no npm install,
#             nothing downloaded at run time: without baked models, mount a models folder at /models
#             (docs/container.md).
# NODE_IMAGE: any Debian-based image with node and npm in /usr/local (docs/container.md builds one without a registry).
ARG NODE_IMAGE=node:24-trixie-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# better-sqlite3 and the AMX guard compile from source (node-gyp): no prebuilt binary is fetched.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
# package.json's allowScripts runs better-sqlite3's build and skips onnxruntime-node's (an optional CUDA download:
# its CPU binaries are in the package), esbuild's and protobufjs's.
COPY package.json package-lock.json ./
# npm ci runs the package's install script, which compiles the AMX guard (src/engine/amx.ts) in place.
COPY scripts/build-amx-guard.mjs ./scripts/
COPY src/engine/amx-guard ./src/engine/amx-guard
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/copy-build-assets.mjs scripts/bundle-page.ts ./scripts/
COPY src ./src
COPY bin ./bin
# After the build: production dependencies only; onnxruntime-node's binaries for this platform only (it ships
# every platform's: ~240 MB more); onnxruntime-web, which @huggingface/transformers' Node build carries bundled
# inside itself and never loads (it runs models on onnxruntime-node); better-sqlite3's SQLite sources and objects;
# the font weights the PDF writer never sets (it uses regular, bold and Noto Sans's italics: src/documents/formats/pdf/fonts.ts);
# of pdf.js only the legacy build's pdf.mjs and its worker (what Node loads), of pdf-lib and fontkit only their main files;
# of @huggingface/transformers only its Node builds (its sources, types and browser builds are never loaded);
# esbuild's binary (the built server reads the page's script bundled by `npm run build`, and dist/ needs no tsx);
# and what no program reads: type declarations, source maps, Markdown (licences kept), dependencies' test folders.
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && platform="$(node -p 'process.platform + "/" + process.arch')" \
 && find node_modules/onnxruntime-node/bin/napi-v6 -mindepth 2 -maxdepth 2 ! -path "*/${platform}" -exec rm -rf {} + \
 && find node_modules/onnxruntime-node/bin/napi-v6 -mindepth 1 -maxdepth 1 -empty -delete \
 && test -n "$(ls node_modules/onnxruntime-node/bin/napi-v6/${platform})" \
 && rm -rf node_modules/onnxruntime-web \
      node_modules/better-sqlite3/deps node_modules/better-sqlite3/src \
      node_modules/better-sqlite3/build/Release/obj.target node_modules/better-sqlite3/build/Release/.deps \
      node_modules/better-sqlite3/build/Release/test_extension.node node_modules/better-sqlite3/build/deps \
 && find node_modules/@embedpdf/fonts-latin/fonts -name '*.ttf' ! -name 'NotoSans-Regular.ttf' ! -name 'NotoSans-Bold.ttf' ! -name 'NotoSans-Italic.ttf' ! -name 'NotoSans-BoldItalic.ttf' -delete \
 && rm -rf node_modules/pdfjs-dist/build node_modules/pdfjs-dist/web node_modules/pdfjs-dist/types node_modules/pdfjs-dist/image_decoders \
      node_modules/pdfjs-dist/legacy/web node_modules/pdfjs-dist/legacy/image_decoders \
      node_modules/pdfjs-dist/legacy/build/*.map node_modules/pdfjs-dist/legacy/build/*.min.mjs node_modules/pdfjs-dist/legacy/build/pdf.sandbox.mjs \
      node_modules/pdf-lib/dist node_modules/pdf-lib/es node_modules/pdf-lib/src node_modules/pdf-lib/ts3.4 node_modules/pdf-lib/yarn.lock \
      node_modules/@pdf-lib/fontkit/dist/fontkit.es.js node_modules/@pdf-lib/fontkit/dist/fontkit.es.min.js node_modules/@pdf-lib/fontkit/dist/fontkit.umd.min.js \
 && for face in devanagari kr; do \
      find node_modules/@expo-google-fonts/noto-sans-$face -mindepth 1 -maxdepth 1 -type d ! -name 400Regular ! -name 700Bold -exec rm -rf {} + \
      && find node_modules/@expo-google-fonts/noto-sans-$face -name '*.png' -delete; done \
 && find node_modules/@expo-google-fonts/noto-sans-sc -mindepth 1 -maxdepth 1 -type d ! -name 400Regular -exec rm -rf {} + \
 && find node_modules/@expo-google-fonts/noto-sans-sc -name '*.png' -delete \
 && rm -rf node_modules/@huggingface/transformers/src node_modules/@huggingface/transformers/types \
      node_modules/@huggingface/transformers/dist/transformers.js node_modules/@huggingface/transformers/dist/transformers.min.js \
      node_modules/@huggingface/transformers/dist/transformers.web.js node_modules/@huggingface/transformers/dist/transformers.web.min.js \
      node_modules/@huggingface/transformers/dist/transformers.node.min.mjs node_modules/@huggingface/transformers/dist/transformers.node.min.cjs \
 && rm -rf node_modules/@esbuild \
 && find node_modules -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' -o -name '*.md' \) ! -iname 'licen*' -delete \
 && find node_modules -mindepth 2 -type d \( -name test -o -name tests -o -name __tests__ \) -prune \
      -exec sh -c 'for d; do if [ -f "$d/../package.json" ]; then rm -rf "$d"; fi; done' sh {} + \
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
