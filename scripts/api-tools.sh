# Sourced by scripts/setup.sh (which installs them), scripts/suite-and-checks.sh and
# scripts/check-api-clients.sh (which run them): the OpenAPI document's validator and the
# generated-client checks' Python tools, pinned, and the virtual environment that holds them.
#
# The environment is shared by every checkout of the machine's user, one per set of pins
# (${XDG_CACHE_HOME:-~/.cache}/tally/api-tools-DIGEST): a fresh clone's `make test` reuses it
# instead of installing the same versions again. $TALLY_API_TOOLS names another directory.
API_TOOL_PINS=("openapi-spec-validator==0.7.1" "openapi-python-client==0.29.1" "mypy==2.4.1" "schemathesis==4.32.5")
# What installs them (scripts/setup.sh): uv resolves and installs the four in 2.4 s of CPU on
# the 2-core machine, where pip took 13.5 s (its own install adds 1.3 s).
API_TOOLS_INSTALLER="uv==0.13.9"
API_TOOLS=${TALLY_API_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/tally/api-tools-$(echo "${API_TOOL_PINS[*]}" | sha256sum | cut -c1-12)}
