#!/usr/bin/env bash
# docs/cli.md must be what scripts/gen-cli-doc.sh writes from the binary's own --help.
set -eu
want=$(bash "$HETUNE_SOURCE_DIR/scripts/gen-cli-doc.sh" "$HETUNE")
have=$(cat "$HETUNE_SOURCE_DIR/docs/cli.md")
if [ "$want" != "$have" ]; then
    echo "docs/cli.md is out of date; run: scripts/gen-cli-doc.sh build/hetune > docs/cli.md" >&2
    diff <(echo "$have") <(echo "$want") >&2 || true
    exit 1
fi
echo "docs/cli.md matches the --help of every subcommand"
