#!/usr/bin/env bash
# Writes docs/cli.md from the --help of every subcommand, so the CLI reference is the code's
# own words. tests/cli/docs.sh fails when docs/cli.md is out of date.
# usage: scripts/gen-cli-doc.sh [path/to/hetune] > docs/cli.md
set -eu
HETUNE=${1:-build/hetune}

cat <<'HEAD'
# CLI reference

Generated from `hetune <command> --help` by `scripts/gen-cli-doc.sh`; do not edit by hand
(`tests/cli/docs.sh` fails when this file and the code disagree).

Exit status everywhere: 0 success, 1 runtime failure, 2 bad input (usage, spec, expression,
build error, broken constraint), 3 verification failed. Devices are named by their index in
`hetune devices` or by a unique part of "<platform> <name>". `--json` gives machine-readable
output.

```
HEAD
"$HETUNE" --help
echo '```'
for cmd in $("$HETUNE" --help | awk '/^commands:/ {on = 1; next} on && NF == 0 {exit} on {print $1}'); do
    printf '\n## hetune %s\n\n```\n' "$cmd"
    "$HETUNE" "$cmd" --help
    echo '```'
done
