#!/bin/sh
# Review the API surface of a pull request: what the change does to the Tyk APIs rendered from APP, compared with
# the base revision. Runs in any CI (the GitHub Actions workflow beside it calls this script) or on a laptop.
#
#   BASE=origin/main APP=apps/shop sh examples/ci/gateway2tyk-diff.sh
#
#   BASE        the revision to compare with (default origin/main); it must be fetched (fetch-depth: 0)
#   APP         the directory (or file) that gateway2tyk renders, relative to the repository (default .)
#   FAIL_ON     the risky changes that fail the check (default: gateway2tyk's, see gateway2tyk diff --help)
#   CONFIG      a function config for both sides (default: the RenderConfig found in APP)
#   REPORT      where the markdown report is written, to post as a pull request comment
#               (default gateway2tyk-diff.md)
#   GATEWAY2TYK the gateway2tyk binary (default: gateway2tyk on PATH)
#
# Prints the report in text on stdout, writes it in markdown to REPORT, and exits with gateway2tyk diff's status:
# 0 no failing change, 1 a failing (risky) change, 2 a usage error (a revision or path that does not exist, a
# broken file). Plain sh: each step checks its own status.

BASE=${BASE:-origin/main}
APP=${APP:-.}
REPORT=${REPORT:-gateway2tyk-diff.md}
GATEWAY2TYK=${GATEWAY2TYK:-gateway2tyk}

set -- --git
if [ -n "$FAIL_ON" ]; then
	set -- "$@" --fail-on "$FAIL_ON"
fi
if [ -n "$CONFIG" ]; then
	set -- "$@" -c "$CONFIG"
fi

# The markdown report decides the status; the text one is for the log. Both are made with the same --fail-on,
# so that the log says which changes fail (its own status, the same, is not used).
"$GATEWAY2TYK" diff "$@" -o markdown "$BASE" "$APP" >"$REPORT"
status=$?
if [ "$status" -ge 2 ]; then
	echo "gateway2tyk-diff: gateway2tyk diff failed (exit status $status); see the line above" >&2
	exit "$status"
fi
"$GATEWAY2TYK" diff "$@" -o text "$BASE" "$APP" || :
if [ "$status" -eq 1 ]; then
	echo "gateway2tyk-diff: risky changes fail the check (report in $REPORT)" >&2
fi
exit "$status"
