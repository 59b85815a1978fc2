# syntax=docker/dockerfile:1
# One image for every app of the podset-operator. Sources run as they are on Node 24's type stripping
# (no build step); the app is chosen by the command:
#   node apps/worker/src/main.ts     (the default CMD)
#   node apps/watcher/src/main.ts
#   node apps/dashboard/src/main.ts
#   node tools/kube-sim/src/main.ts  (the local simulated cluster of docker-compose.yml)
# Build: docker build -t podset-operator:dev .
ARG NODE_IMAGE=node:24-bookworm-slim

# 1. manifests: only the package.json files of the root and of every workspace, so that the dependency
#    layer below is rebuilt when a manifest or the lockfile changes, not when a source file does.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir /manifests \
 && find . -path ./node_modules -prune -o \( -name package.json -o -name package-lock.json \) -print \
    | xargs -I{} cp --parents {} /manifests/

# 2. deps: production dependencies only. The root devDependencies (typescript, eslint, the `node`
#    package that ships a Node 24 binary for development, …) are left out: the image uses the base
#    image's own Node 24.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY --from=manifests /manifests/ ./
RUN npm ci --omit=dev --no-audit --no-fund \
 && npm cache clean --force

# 3. runtime: sources and production node_modules, run as an unprivileged numeric user (uid 1000 is
#    the base image's `node` user; numeric so Kubernetes' runAsNonRoot can verify it).
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
# The license goes with every copy of the image (Apache-2.0, section 4).
COPY LICENSE package.json package-lock.json ./
COPY libs ./libs
COPY apps ./apps
COPY tools ./tools
COPY crds ./crds
# Where docker-compose's kube-sim writes kubeconfigs (a named volume takes this directory's owner).
RUN mkdir -p /home/node/.kube && chown 1000:1000 /home/node/.kube
USER 1000:1000
# Each app serves /metrics, /healthz and /readyz on its own HTTP_PORT; the probes live in
# docker-compose.yml and k8s/, where the port is known.
# watcher 8080, worker 8081, dashboard 8082 (UI) and 8083 (probes), kube-sim 6443.
EXPOSE 8080 8081 8082 8083 6443
CMD ["node", "apps/worker/src/main.ts"]
