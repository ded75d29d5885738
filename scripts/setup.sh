#!/usr/bin/env bash
# Installs the C libraries Tally links against when they are missing.
# Debian/Ubuntu: liblz4-dev (the log's compression) and libsqlite3-dev (read models).
set -euo pipefail
missing=()
for pkg in liblz4-dev libsqlite3-dev pkg-config; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
    echo "setup: installing ${missing[*]}" >&2
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi
