#!/usr/bin/env bash
# Writes the hetune(1) manual page from the --help of the binary and of every subcommand, so
# the page is the code's own words (as docs/cli.md is). The build runs it (man/hetune.1 in
# the build folder) and cmake --install puts the page in share/man/man1.
# usage: scripts/gen-man.sh [path/to/hetune [OUT]]   (OUT: default stdout)
set -eu
HETUNE=${1:-build/hetune}
if [ $# -ge 2 ]; then
    mkdir -p "$(dirname "$2")"
    exec >"$2.tmp"
    trap 'rm -f "$2.tmp"' EXIT
fi

# Text as roff sees it: backslashes doubled, a leading dot or quote escaped.
esc() { sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"; }

version=$("$HETUNE" --version | awk '{print $2}')
commands=$("$HETUNE" --help | awk '/^commands:/ {on = 1; next} on && NF == 0 {exit} on {print $1}')
cat <<HEAD
.TH HETUNE 1 "" "hetune $version" "User Commands"
.SH NAME
hetune \\- tune OpenCL kernels per device and co-execute them on every device at once
.SH SYNOPSIS
.B hetune
.I command
[\\fIoptions\\fR]
.br
.B hetune
.I command
.B \\-\\-help
.br
.B hetune \\-\\-version
.SH DESCRIPTION
hetune reads an OpenCL kernel and a JSON spec of its tuning parameters, prunes the space to
what can launch on each device, tunes each device, and splits the kernel's work between
devices so that each keeps its best work-group size. The spec's format is in docs/spec.md
of the source tree; the guide is docs/guide.md.
.PP
.nf
HEAD
"$HETUNE" --help | esc
echo ".fi"
echo ".SH COMMANDS"
for cmd in $commands; do
    printf '.SS hetune %s\n.nf\n' "$cmd"
    "$HETUNE" "$cmd" --help | esc
    echo ".fi"
done
cat <<'TAIL'
.SH ENVIRONMENT
.TP
.B HETUNE_CACHE_DIR
the kernel binary cache folder (else $XDG_CACHE_HOME/hetune, else ~/.cache/hetune)
.TP
.B HETUNE_WORKER
the worker executable of isolated evaluations (else the one installed with hetune)
.TP
.B POCL_DEVICES
PoCL's devices, for example "pthread basic" for two CPU devices of different speed
.SH EXIT STATUS
0 success, 1 runtime failure, 2 bad input, 3 verification failed, 130 interrupted.
TAIL
if [ $# -ge 2 ]; then
    mv "$2.tmp" "$2"
    trap - EXIT
fi
