# The podset-operator image and, as a separate target, kube-sim for docker-compose's local cluster.
# Sources run as they are on Node 24's type stripping (no build step); the app is chosen by the command.
#
#   docker build -t podset-operator:dev .                                  # production (the last stage)
#     node apps/worker/src/main.ts     (the default CMD)
#     node apps/watcher/src/main.ts
#     node apps/dashboard/src/main.ts
#   docker build --target kube-sim -t podset-operator-kube-sim:dev .       # development only
#     node tools/kube-sim/src/cmd/main.ts  (its CMD)
#
# kube-sim is a development tool: the production image has no tools/ and none of kube-sim's dependencies
# (they are declared by tools/kube-sim/package.json, a workspace the production install leaves out).
ARG NODE_IMAGE=node:24-bookworm-slim

# 1. manifests: only the package.json files of the root and of every workspace, so that the dependency
#    layers below are rebuilt when a manifest or the lockfile changes, not when a source file does.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir /manifests \
 && find . -path ./node_modules -prune -o \( -name package.json -o -name package-lock.json \) -print \
    | xargs -I{} cp --parents {} /manifests/

# 2. deps: production dependencies of the root and of the libs/ and apps/ workspaces the apps run, by
#    name. The root devDependencies (typescript, eslint, the `node` package that ships a Node 24 binary
#    for development, …) are left out, and so are libs/testkit (test helpers) and the tools/ workspaces
#    (kube-sim, the demo): a workspace not selected with --workspace gets neither its link nor its
#    dependencies.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY --from=manifests /manifests/ ./
RUN npm ci --omit=dev --include-workspace-root \
      --workspace=libs/clock --workspace=libs/config --workspace=libs/event-log --workspace=libs/kube --workspace=libs/log \
      --workspace=libs/queue --workspace=libs/reconcile --workspace=libs/redis --workspace=libs/runtime \
      --workspace=libs/state \
      --workspace=apps --no-audit --no-fund \
 && npm cache clean --force

# 3. kube-sim-deps: kube-sim's own dependencies only (not the root's), laid over the production
#    node_modules by the kube-sim target. One lockfile, so they sit where a full install puts them.
FROM ${NODE_IMAGE} AS kube-sim-deps
WORKDIR /app
COPY --from=manifests /manifests/ ./
RUN npm ci --omit=dev --workspace=tools/kube-sim --no-audit --no-fund \
 && npm cache clean --force \
 && mkdir -m 0700 /data-dir

# 4. app: sources and production node_modules, run as an unprivileged numeric user (uid 1000 is the base
#    image's `node` user; numeric so Kubernetes' runAsNonRoot can verify it).
FROM ${NODE_IMAGE} AS app
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
# The license goes with every copy of the image (Apache-2.0, section 4).
COPY LICENSE package.json package-lock.json ./
# The libraries the apps load, one by one: not libs/testkit (test helpers that start redis-server and
# kubectl), which no app imports.
COPY libs/clock ./libs/clock
COPY libs/config ./libs/config
COPY libs/event-log ./libs/event-log
COPY libs/kube ./libs/kube
COPY libs/log ./libs/log
COPY libs/queue ./libs/queue
COPY libs/reconcile ./libs/reconcile
COPY libs/redis ./libs/redis
COPY libs/runtime ./libs/runtime
COPY libs/state ./libs/state
COPY apps ./apps
COPY crds ./crds
# Where compose mounts the kubeconfigs volume (a named volume takes this directory's owner). npm, npx and
# corepack go: the apps run with node alone, and a package manager in a running pod is a tool for an
# intruder (fetching and running code), not for us.
# Where compose's redis-acl service writes Redis's ACL file, as Redis's uid (999): a named volume takes
# this directory's owner and mode, so only Redis reads the passwords in it.
RUN mkdir -p /home/node/.kube && chown 1000:1000 /home/node/.kube \
 && mkdir -m 0700 /var/lib/podset-redis-acl && chown 999:999 /var/lib/podset-redis-acl \
 && rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack
USER 1000:1000
# Each app serves /metrics, /healthz and /readyz on its own HTTP_PORT; the probes live in
# docker-compose.yml and k8s/, where the port is known.
# watcher 8080, worker 8081, dashboard 8082 (UI) and 8083 (probes).
EXPOSE 8080 8081 8082 8083
CMD ["node", "apps/worker/src/main.ts"]

# 5. kube-sim (development target, for docker-compose.yml): the production image plus kube-sim's sources
#    and dependencies. The second COPY brings the workspace's own node_modules, should the lockfile nest
#    one there (a version that differs from the root's).
FROM app AS kube-sim
COPY --from=kube-sim-deps /app/node_modules ./node_modules
COPY tools/kube-sim ./tools/kube-sim
COPY --from=kube-sim-deps /app/tools/kube-sim ./tools/kube-sim
# Where compose mounts kube-sim's --data-dir volume: an empty directory of the app user's, so that a new
# named volume takes that owner (an image has no RUN after USER, hence a copy).
COPY --from=kube-sim-deps --chown=1000:1000 /data-dir /var/lib/kube-sim
EXPOSE 6443
CMD ["node", "tools/kube-sim/src/cmd/main.ts"]

# 6. runtime: the production image, and the default target (the last stage): `app`, nothing added.
FROM app AS runtime
