"""Schemathesis hooks for scripts/check-api-clients.sh (loaded through SCHEMATHESIS_HOOKS).

An NDJSON upload (`POST /ledgers/{ledger}/imports/events`, `application/x-ndjson`) is text:
its examples and generated bodies are sent as they are, as `text/plain` bodies are.
"""

import schemathesis

schemathesis.serializer.alias("application/x-ndjson", "text/plain")
