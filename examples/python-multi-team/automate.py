"""Runs a Pulumi Python project's program (this folder's by default) through the Automation API:
the program is an inline program, served by the `pulumi` package's own language server, so this
runs with the Pulumi CLI alone, without its Python language host (pulumi-language-python).

    python automate.py preview [--refresh] [--expect-no-changes]
    python automate.py up [--refresh]
    python automate.py destroy
    python automate.py import <type> <name> <id> [--provider <urn>]

Stack `dev` (--stack), selected, not created: `pulumi stack init dev` and `pulumi config set` come
first, as in README.md. The last line printed is one JSON object: ok, the changes (changeSummary of
a preview, summary of an update), the stack's outputs, and the CLI's error message when not ok.
"""

import argparse
import json
import os
import runpy
import sys

from pulumi import automation as auto


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("op", choices=["preview", "up", "destroy", "import"])
    parser.add_argument("resource", nargs="*", help="import: <type> <name> <id>")
    parser.add_argument("--stack", default="dev")
    parser.add_argument("--dir", default=os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--refresh", action="store_true")
    parser.add_argument("--expect-no-changes", action="store_true")
    parser.add_argument("--provider", help="import: the URN of the provider to import with")
    return parser.parse_args()


def run(args, stack):
    if args.op == "preview":
        result = stack.preview(refresh=args.refresh, expect_no_changes=args.expect_no_changes)
        return {"changeSummary": {k.value if hasattr(k, "value") else k: v
                                  for k, v in result.change_summary.items()}}
    if args.op == "up":
        result = stack.up(refresh=args.refresh)
        outputs = {k: v.value for k, v in result.outputs.items()}
        return {"summary": result.summary.resource_changes, "outputs": outputs}
    if args.op == "destroy":
        result = stack.destroy()
        return {"summary": result.summary.resource_changes}
    kind, name, resource_id = args.resource
    resource = {"type": kind, "name": name, "id": resource_id}
    if args.provider:
        resource["provider"] = args.provider
    result = stack.import_resources(resources=[resource], generate_code=False)
    return {"summary": result.summary.resource_changes}


def main():
    args = parse_args()
    workspace = auto.LocalWorkspace(
        work_dir=args.dir,
        # What `pulumi up` runs: the folder's __main__.py, as the module __main__.
        program=lambda: runpy.run_path(args.dir, run_name="__main__"),
    )
    stack = auto.Stack.select(args.stack, workspace)
    try:
        done = {"ok": True, **run(args, stack)}
    except auto.CommandError as error:
        done = {"ok": False, "message": str(error)}
    print(json.dumps(done, default=str))
    return 0 if done["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
