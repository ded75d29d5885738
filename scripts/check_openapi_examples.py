#!/usr/bin/env python3
"""Checks every example in Schemas/openapi.yaml against the schema it illustrates.

OpenAPI 3.1 schemas are JSON Schema 2020-12, so each example (`example:` or each of
`examples:`'s `value`) of a media type, a parameter or a component schema is validated with
jsonschema's Draft 2020-12 validator, `$ref`s resolved within the document. An example that
breaks its schema teaches an app team the wrong shape; openapi-spec-validator does not
look at examples, so this does.

Usage: check_openapi_examples.py [--stats] [DOCUMENT]   (default Schemas/openapi.yaml)
Needs PyYAML and jsonschema (openapi-spec-validator, which scripts/setup.sh installs,
brings both). Exits 1 naming every example that does not validate, by its place in the
document.
"""

import argparse
import os
import sys

import jsonschema
import yaml
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

METHODS = ("get", "put", "post", "delete", "patch", "head", "options")


def examples_of(holder):
    """(name, value) of the examples a media type, a parameter or a schema holds: a media
    type's or a parameter's `examples` is a map of Example objects, a schema's (JSON Schema's
    keyword, e.g. the typed events' data from Schemas/events) a list of values."""
    if "example" in holder:
        yield "example", holder["example"]
    examples = holder.get("examples") or {}
    if isinstance(examples, list):
        for index, value in enumerate(examples):
            yield f"examples[{index}]", value
        return
    for name, example in examples.items():
        if isinstance(example, dict) and "value" in example:
            yield f"examples.{name}", example["value"]


def places(document):
    """(where, schema, name, example) for every example of the document."""
    for path, item in document.get("paths", {}).items():
        for method in METHODS:
            operation = item.get(method)
            if not operation:
                continue
            where = f"{method.upper()} {path}"
            for parameter in operation.get("parameters", []):
                if "$ref" in parameter or "schema" not in parameter:
                    continue
                for name, value in examples_of(parameter):
                    yield f"{where} parameter {parameter['name']}", parameter["schema"], name, value
            for media, content in (operation.get("requestBody", {}).get("content") or {}).items():
                for name, value in examples_of(content):
                    yield f"{where} request {media}", content.get("schema", {}), name, value
            for status, response in operation.get("responses", {}).items():
                for media, content in (response.get("content") or {}).items():
                    for name, value in examples_of(content):
                        yield f"{where} {status} {media}", content.get("schema", {}), name, value
    for name, schema in document.get("components", {}).get("schemas", {}).items():
        for example_name, value in examples_of(schema):
            yield f"components.schemas.{name}", {"$ref": f"#/components/schemas/{name}"}, example_name, value
    for name, parameter in document.get("components", {}).get("parameters", {}).items():
        for example_name, value in examples_of(parameter):
            yield f"components.parameters.{name}", parameter.get("schema", {}), example_name, value


def operations_without_examples(document):
    """The operations with a JSON request or a JSON 2xx answer but no example of it."""
    missing = []
    for path, item in document.get("paths", {}).items():
        for method in METHODS:
            operation = item.get(method)
            if not operation:
                continue
            contents = list((operation.get("requestBody", {}).get("content") or {}).items())
            for status, response in operation.get("responses", {}).items():
                if str(status).startswith("2"):
                    contents += list((response.get("content") or {}).items())
            json_contents = [content for media, content in contents if media.endswith("json")]
            if json_contents and not any(list(examples_of(content)) for content in json_contents):
                missing.append(operation.get("operationId", f"{method} {path}"))
    return missing


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("document", nargs="?", default=os.path.join(os.path.dirname(__file__), "..", "Schemas", "openapi.yaml"))
    parser.add_argument("--stats", action="store_true", help="also list the operations with JSON and no example")
    arguments = parser.parse_args()
    with open(arguments.document, encoding="utf-8") as file:
        document = yaml.safe_load(file)
    # The document is the schemas' root: `#/components/...` resolves within it.
    resource = Resource.from_contents(document, default_specification=DRAFT202012)
    registry = Registry().with_resource("urn:tally:openapi", resource)
    problems, checked = [], 0
    for where, schema, name, value in places(document):
        checked += 1
        rooted = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "urn:tally:openapi#example", **schema}
        if "$ref" in schema and schema["$ref"].startswith("#"):
            rooted["$ref"] = "urn:tally:openapi" + schema["$ref"]
        validator = jsonschema.Draft202012Validator(_rebase(rooted), registry=registry)
        for error in validator.iter_errors(value):
            at = "/".join(str(part) for part in error.absolute_path) or "(the example)"
            problems.append(f"{where} {name}: at {at}: {error.message[:300]}")
    for problem in problems:
        print(f"check-openapi-examples: {problem}", file=sys.stderr)
    print(f"check-openapi-examples: {checked} examples, {len(problems)} that break their schema", file=sys.stderr)
    if arguments.stats:
        missing = operations_without_examples(document)
        print(f"check-openapi-examples: {len(missing)} operations with JSON and no example: {' '.join(missing)}", file=sys.stderr)
    return 1 if problems else 0


def _rebase(schema):
    """`#/...` references inside an inline schema, made absolute to the document."""
    if isinstance(schema, dict):
        return {key: ("urn:tally:openapi" + value if key == "$ref" and isinstance(value, str) and value.startswith("#/") else _rebase(value))
                for key, value in schema.items()}
    if isinstance(schema, list):
        return [_rebase(item) for item in schema]
    return schema


if __name__ == "__main__":
    sys.exit(main())
