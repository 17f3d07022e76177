#!/usr/bin/env python3
"""Golden tests: every scenario in scenarios.txt, in every format, must print
exactly the stored output; every JSON output must validate against
docs/schema/recommendation.schema.json (fit's against docs/schema/fit.schema.json).

    run_golden.py --binary build/dev/gpu-advise [--scenario NAME] [--update]

With --update (or GPU_ADVISE_UPDATE_GOLDEN=1) the stored outputs are rewritten.
The environment is fixed (LC_ALL=C, COLUMNS=100, NO_COLOR, no config file, the
reports dated by SOURCE_DATE_EPOCH) so outputs do not depend on the machine or
the day; they carry no absolute paths.
"""
import argparse
import difflib
import json
import os
import pathlib
import subprocess
import sys
import warnings

import jsonschema

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
FORMATS = {"text": "output.txt", "json": "output.json", "markdown": "output.md", "html": "output.html",
           "csv": "output.csv"}
REPORT_DATE = "1796083200"  # 2026-12-01


def validators():
    """The recommendation and fit validators; fit's schema refers to the recommendation's objects."""
    recommendation = json.loads((ROOT / "docs/schema/recommendation.schema.json").read_text(encoding="utf-8"))
    fit = json.loads((ROOT / "docs/schema/fit.schema.json").read_text(encoding="utf-8"))
    for schema in (recommendation, fit):
        jsonschema.Draft202012Validator.check_schema(schema)
    with warnings.catch_warnings():  # RefResolver: deprecated in newer jsonschema, the API of Debian 12's 4.10
        warnings.simplefilter("ignore", DeprecationWarning)
        resolver = jsonschema.RefResolver.from_schema(fit, store={recommendation["$id"]: recommendation})
    return (jsonschema.Draft202012Validator(recommendation),
            jsonschema.Draft202012Validator(fit, resolver=resolver))


def scenarios():
    for line in (HERE / "scenarios.txt").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, status, args = (part.strip() for part in line.split("|", 2))
        yield name, int(status), args.split()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--scenario")
    parser.add_argument("--update", action="store_true")
    options = parser.parse_args()
    update = options.update or os.environ.get("GPU_ADVISE_UPDATE_GOLDEN") == "1"
    recommendation_validator, fit_validator = validators()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "LANG": "C", "COLUMNS": "100",
           "NO_COLOR": "1", "GPU_ADVISE_CONFIG": "", "SOURCE_DATE_EPOCH": REPORT_DATE}
    failures = 0
    checked = 0
    for name, expected_status, args in scenarios():
        if options.scenario and name != options.scenario:
            continue
        folder = HERE / name
        folder.mkdir(exist_ok=True)
        for fmt, filename in FORMATS.items():
            result = subprocess.run([options.binary, *args, "--format", fmt], capture_output=True, env=env, cwd=ROOT,
                                    timeout=60)
            checked += 1
            label = f"{name} [{fmt}]"
            if result.returncode != expected_status:
                print(f"FAIL {label}: exit status {result.returncode}, expected {expected_status}\n"
                      f"{result.stderr.decode()}")
                failures += 1
                continue
            output = result.stdout.decode("utf-8")
            if "\x1b[" in output:
                print(f"FAIL {label}: colour codes in output")
                failures += 1
            if str(ROOT) in output:
                print(f"FAIL {label}: an absolute path in the output")
                failures += 1
            if fmt == "json":
                validator = fit_validator if args[0] == "fit" else recommendation_validator
                errors = list(validator.iter_errors(json.loads(output)))
                for error in errors[:5]:
                    print(f"FAIL {label}: schema: {'/'.join(map(str, error.path))}: {error.message}")
                failures += bool(errors)
            golden = folder / filename
            if update:
                golden.write_bytes(output.encode("utf-8"))  # bytes: the CSV keeps its CRLF
                continue
            if not golden.exists():
                print(f"FAIL {label}: no golden file {golden.relative_to(ROOT)} (run with --update)")
                failures += 1
                continue
            expected = golden.read_bytes().decode("utf-8")
            if output != expected:
                diff = difflib.unified_diff(expected.splitlines(), output.splitlines(), "golden", "actual", lineterm="",
                                            n=1)
                print(f"FAIL {label}: differs from {golden.relative_to(ROOT)}:")
                print("\n".join(list(diff)[:40]))
                failures += 1
    # docs/ carries the first scenario's reports as the example a consultant sees.
    for fmt, name in (("html", "example-report.html"), ("markdown", "example-report.md")):
        source = HERE / "lora-70b-low" / FORMATS[fmt]
        example = ROOT / "docs" / name
        if update:
            example.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
        elif not example.exists() or example.read_text(encoding="utf-8") != source.read_text(encoding="utf-8"):
            print(f"FAIL docs/{name} differs from {source.relative_to(ROOT)} (run with --update)")
            failures += 1
        checked += 1
    print(f"golden: {checked - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
