#!/usr/bin/env python3
"""The JSON Schemas catch drift: every golden JSON validates, and removing any
field of the document (top level, request, model, a recommendation and its
nested objects, a rejection; fit's fleets, rows and plans) makes it fail."""
import json
import pathlib
import sys

import jsonschema

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def paths(value, prefix=()):
    """Every key path of the objects in value (lists: their first element)."""
    if isinstance(value, dict):
        for key, child in value.items():
            yield prefix + (key,)
            yield from paths(child, prefix + (key,))
    elif isinstance(value, list) and value:
        yield from paths(value[0], prefix + (0,))


def main():
    sys.path.insert(0, str(HERE))
    from run_golden import validators  # the same validators as the golden run
    recommendation_validator, fit_validator = validators()
    failures = 0
    checked = 0
    for golden in sorted(HERE.glob("*/output.json")):
        document = json.loads(golden.read_text(encoding="utf-8"))
        validator = fit_validator if document.get("kind") == "fit" else recommendation_validator
        checked += 1
        if not validator.is_valid(document):
            print(f"FAIL {golden.relative_to(ROOT)} does not validate")
            failures += 1
        # Each field removed in place and put back (a deep copy of a large
        # document per field made this test take minutes); one error is enough.
        for path in list(paths(document)):
            node = document
            for step in path[:-1]:
                node = node[step]
            removed = node.pop(path[-1])
            checked += 1
            if validator.is_valid(document):
                print(f"FAIL {golden.relative_to(ROOT)}: removing {'/'.join(map(str, path))} still validates")
                failures += 1
            node[path[-1]] = removed
    print(f"schema: {checked - failures} passed, {failures} failed")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
