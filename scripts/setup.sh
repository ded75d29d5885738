#!/usr/bin/env bash
# Installs what Tally builds against and what its tests run, when it is missing.
#
#   scripts/setup.sh          # both parts
#   scripts/setup.sh build    # what the build links against (make demo, make build)
#   scripts/setup.sh tests    # what the suite and the checks run (scripts/test.sh runs this
#                             # beside the build)
#
# build: liblz4-dev (the log's compression), libsqlite3-dev (read models), libpq-dev (the
# log on PostgreSQL), pkg-config.
# tests: postgresql-15 and postgresql-client-15 (a throwaway cluster per test run),
# chromium and chromium-driver (DashboardBrowserTests loads the service's dashboard page in a
# real headless browser through chromedriver), the OpenAPI document's validator and the API
# checks' Python tools.
set -euo pipefail
build_packages=(liblz4-dev libsqlite3-dev pkg-config libpq-dev)
test_packages=(postgresql-15 postgresql-client-15 chromium chromium-driver)
part="${1:-all}"
case "$part" in
    build) packages=("${build_packages[@]}") ;;
    tests) packages=("${test_packages[@]}") ;;
    all) packages=("${build_packages[@]}" "${test_packages[@]}") ;;
    *) echo "setup: unknown part '$part' (build, tests or none for both)" >&2; exit 2 ;;
esac

missing=()
for pkg in "${packages[@]}"; do
    # Installed, not only known: a removed package whose configuration files stay is known.
    [ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)" = "install ok installed" ] || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
    echo "setup: installing ${missing[*]}" >&2
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    apt_install() { DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null; }
    # Without package lists (a fresh image) or with stale ones the first attempt fails: the
    # lists are fetched then. The tests part, run right after the build part, finds them fresh.
    apt_install 2>/dev/null || { $sudo_cmd apt-get update -qq && apt_install; }
fi
[ "$part" != build ] || exit 0

# The OpenAPI document's validator, pinned: `make test` checks Schemas/openapi.yaml with it.
OPENAPI_SPEC_VALIDATOR_VERSION=0.7.1
if [ "$(python3 -m pip show openapi-spec-validator 2>/dev/null | sed -n 's/^Version: //p')" != "$OPENAPI_SPEC_VALIDATOR_VERSION" ]; then
    echo "setup: installing openapi-spec-validator $OPENAPI_SPEC_VALIDATOR_VERSION" >&2
    python3 -m pip install --quiet --disable-pip-version-check "openapi-spec-validator==$OPENAPI_SPEC_VALIDATOR_VERSION"
fi
# The generated-client checks' tools (scripts/check-api-clients.sh, run by `make test`),
# pinned, in a virtual environment of their own (scripts/api-tools.sh: which versions, and
# where): openapi-python-client and mypy (the generated client passes `mypy --strict`),
# schemathesis (against a live `tally serve`). Installed once per machine and set of pins;
# a lock keeps two checkouts' set-ups from installing into it at once.
. "$(dirname "$0")/api-tools.sh"
if [ "$(cat "$API_TOOLS/pins" 2>/dev/null)" != "${API_TOOL_PINS[*]}" ] || ! "$API_TOOLS/bin/python" -c '' 2>/dev/null; then
    mkdir -p "$(dirname "$API_TOOLS")"
    (
        flock 9
        if [ "$(cat "$API_TOOLS/pins" 2>/dev/null)" != "${API_TOOL_PINS[*]}" ] || ! "$API_TOOLS/bin/python" -c '' 2>/dev/null; then
            echo "setup: installing ${API_TOOL_PINS[*]} into $API_TOOLS" >&2
            rm -rf "$API_TOOLS"
            python3 -m venv "$API_TOOLS"
            # --no-compile: pip byte-compiles every module of every package it installs (15.5 s of
            # CPU in all, 11.2 s without); the checks import a fraction of them, compiled on first use.
            "$API_TOOLS/bin/python" -m pip install --quiet --disable-pip-version-check --no-compile "${API_TOOL_PINS[@]}"
            echo "${API_TOOL_PINS[*]}" > "$API_TOOLS/pins"
        fi
    ) 9> "$API_TOOLS.lock"
fi
