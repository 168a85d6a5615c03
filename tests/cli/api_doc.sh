#!/usr/bin/env bash
# docs/api.md must be what scripts/gen-api-doc.py writes from the public headers' comments.
set -eu
want=$(python3 "$HETUNE_SOURCE_DIR/scripts/gen-api-doc.py" "$HETUNE_SOURCE_DIR/include")
have=$(cat "$HETUNE_SOURCE_DIR/docs/api.md")
if [ "$want" != "$have" ]; then
    echo "docs/api.md is out of date; run: python3 scripts/gen-api-doc.py > docs/api.md" >&2
    diff <(echo "$have") <(echo "$want") >&2 || true
    exit 1
fi
# Every public function of the headers has its section (the parser missed none).
for h in "$HETUNE_SOURCE_DIR"/include/hetune/*.h; do
    for f in $(grep -E '^[a-z]' "$h" | grep -oE '[ *]ht_[a-z0-9_]+\(' | grep -oE 'ht_[a-z0-9_]+'); do
        grep -qE "^### .*\`$f\`" "$HETUNE_SOURCE_DIR/docs/api.md" ||
            { echo "docs/api.md has no section for $f ($(basename "$h"))" >&2; exit 1; }
    done
done
echo "docs/api.md matches the comments of the public headers"
