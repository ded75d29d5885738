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
    # Without the packages' recommendations: chromium and postgresql-15 recommend 93 more
    # (a desktop's printing, sound, Avahi, udev, locales and their configuration: 23.1 s of CPU
    # against 16.0 s) that neither a build nor a test uses.
    apt_install() { DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }
    # Without package lists (a fresh image) or with stale ones the first attempt fails: the
    # lists are fetched then. The tests part, run right after the build part, finds them fresh.
    apt_install 2>/dev/null || { $sudo_cmd apt-get update -qq && apt_install; }
fi
[ "$part" != build ] || exit 0

# The OpenAPI document's validator (`make test` checks Schemas/openapi.yaml with it) and the
# generated-client checks' tools (scripts/check-api-clients.sh): openapi-python-client and mypy
# (the generated client passes `mypy --strict`), schemathesis (against a live `tally serve`).
# Pinned, in a virtual environment of their own (scripts/api-tools.sh: which versions, and
# where), installed once per machine and set of pins; a lock keeps two checkouts' set-ups from
# installing into it at once. uv installs them (pinned too; put in a directory of its own for
# the install, then removed); the environment has no pip of its own.
. "$(dirname "$0")/api-tools.sh"
if [ "$(cat "$API_TOOLS/pins" 2>/dev/null)" != "${API_TOOL_PINS[*]}" ] || ! "$API_TOOLS/bin/python" -c '' 2>/dev/null; then
    mkdir -p "$(dirname "$API_TOOLS")"
    (
        flock 9
        if [ "$(cat "$API_TOOLS/pins" 2>/dev/null)" != "${API_TOOL_PINS[*]}" ] || ! "$API_TOOLS/bin/python" -c '' 2>/dev/null; then
            echo "setup: installing ${API_TOOL_PINS[*]} into $API_TOOLS" >&2
            rm -rf "$API_TOOLS"
            # Beside the environment, on its file system: uv links what it unpacked into its cache.
            installer=$(mktemp -d "$API_TOOLS.installer.XXXXXX")
            trap 'rm -rf "$installer"' EXIT
            python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
                --target "$installer/uv" "$API_TOOLS_INSTALLER"
            python3 -m venv --without-pip "$API_TOOLS"
            UV_CACHE_DIR="$installer/cache" "$installer/uv/bin/uv" pip install --quiet --no-config \
                --python "$API_TOOLS/bin/python" "${API_TOOL_PINS[@]}"
            echo "${API_TOOL_PINS[*]}" > "$API_TOOLS/pins"
        fi
    ) 9> "$API_TOOLS.lock"
fi
