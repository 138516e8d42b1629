#!/bin/sh
# Find drift: compare what the Tyk Dashboard or Gateway serves with the APIs rendered from APP, read-only. Catches
# an API changed in the Dashboard or through the Gateway API behind GitOps' back (the next sync would silently
# overwrite it), one deleted there, and one gateway2tyk created that the render no longer has. Runs in any CI
# (the scheduled GitHub Actions workflow beside it calls this script) or on a laptop.
#
#   TYK_MODE=pro TYK_URL=https://dashboard.example.com TYK_AUTH=... APP=apps/shop sh examples/ci/gateway2tyk-drift.sh
#
#   APP         the directory (or file) that gateway2tyk renders, relative to the repository (default .)
#   TYK_MODE, TYK_URL, TYK_AUTH, TYK_ORG
#               the target, as gateway2tyk sync reads them (pro: Tyk Dashboard, ce: open-source Gateway)
#   NAMESPACES  compare only the APIs of routes in these namespaces (comma-separated; default all)
#   REPORT      where the markdown report is written, for a job summary or an issue (default gateway2tyk-drift.md)
#   GATEWAY2TYK the gateway2tyk binary (default: gateway2tyk on PATH)
#
# Prints the report in text on stdout, writes it in markdown to REPORT, and exits with gateway2tyk sync --check's
# status: 0 in sync, 1 drift (or the target could not be read), 2 a usage error (no target, a bad flag). The
# check writes nothing to Tyk and reloads nothing. Plain sh: each step checks its own status.

APP=${APP:-.}
REPORT=${REPORT:-gateway2tyk-drift.md}
GATEWAY2TYK=${GATEWAY2TYK:-gateway2tyk}
RENDERED=${TMPDIR:-/tmp}/gateway2tyk-drift-rendered.$$.yaml
trap 'rm -f "$RENDERED"' EXIT

set --
if [ -n "$NAMESPACES" ]; then
	set -- --namespace "$NAMESPACES"
fi

if ! "$GATEWAY2TYK" render "$APP" >"$RENDERED"; then
	echo "gateway2tyk-drift: gateway2tyk render $APP failed; see the lines above" >&2
	exit 2
fi
# The markdown report decides the status; the text one is for the log.
"$GATEWAY2TYK" sync --check "$@" --from "$RENDERED" -o markdown >"$REPORT"
status=$?
if [ "$status" -ge 2 ]; then
	echo "gateway2tyk-drift: gateway2tyk sync --check failed (exit status $status); see the line above" >&2
	exit "$status"
fi
"$GATEWAY2TYK" sync --check "$@" --from "$RENDERED" -o text
if [ "$status" -eq 1 ]; then
	echo "gateway2tyk-drift: Tyk differs from the render (report in $REPORT)" >&2
fi
exit "$status"
