#!/bin/sh
# make bench-diff: the cost of `gateway2tyk diff` against one render (issue 14: at most 2.5x). For each size, writes
# a generated fleet and the same fleet with CHANGED routes changed (bench/diffgen) into bench/out/, then measures,
# RUNS times each and alternating, the wall time and peak RSS of
#   render  gateway2tyk < old.yaml             (the KRM function: one render, output written)
#   diff    gateway2tyk diff old.yaml new.yaml (both sides read and rendered, compared, report written)
# and prints a table with the best run of each and the ratio diff / render.
#
#   SIZES    route counts                (default "1000 10000")
#   CHANGED  routes changed on one side  (default 10)
#   RUNS     runs of each at each size   (default 2)
#   TIMEOUT  seconds allowed for one run (default 900)
#
# Plain sh: every step checks its own status (no pipefail).

SIZES=${SIZES:-"1000 10000"}
CHANGED=${CHANGED:-10}
RUNS=${RUNS:-2}
TIMEOUT=${TIMEOUT:-900}
GO=${GO:-go}
OUT=bench/out

cd "$(dirname "$0")/.." || exit 1
mkdir -p "$OUT" || exit 1

. bench/gnutime.sh
need_gnu_time bench-diff || exit 1

echo "bench-diff: building"
CGO_ENABLED=0 $GO build -trimpath -o "$OUT/gateway2tyk" ./cmd/gateway2tyk || exit 1
CGO_ENABLED=0 $GO build -trimpath -o "$OUT/diffgen" ./bench/diffgen || exit 1
echo "bench-diff: machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"

# measure NAME STATUS... -- COMMAND...: runs COMMAND once (stdin from $stdin) and sets wall (s) and rss (MB); the
# exit status must be one of the given ones.
measure() {
	ok=$1
	shift
	timeout "$TIMEOUT" "$TIME" -o "$OUT/time.txt" -f '%e %M' "$@" <"$stdin" >"$OUT/diff-output.txt" 2>"$OUT/diff-stderr.txt"
	status=$?
	case " $ok " in
	*" $status "*) ;;
	*)
		echo "bench-diff: $* exited $status:" >&2
		tail -n 5 "$OUT/diff-stderr.txt" >&2
		return 1
		;;
	esac
	set -- $(tail -n 1 "$OUT/time.txt")
	wall=$1
	rss=$(awk -v k="$2" 'BEGIN {printf "%.0f", k/1024}')
}

rows=
for n in $SIZES; do
	old="$OUT/diff-old-$n.yaml" new="$OUT/diff-new-$n.yaml"
	"$OUT/diffgen" -routes "$n" -changed "$CHANGED" -old "$old" -new "$new" || exit 1
	echo "bench-diff: $n routes, $CHANGED changed: render and diff, best of $RUNS"
	rw= rr= dw= dr=
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		stdin=$old
		measure 0 "$OUT/gateway2tyk" || exit 1
		if [ -z "$rw" ] || awk -v a="$wall" -v b="$rw" 'BEGIN {exit !(a < b)}'; then rw=$wall rr=$rss; fi
		stdin=/dev/null
		# The fleet's own invalid routes change nothing; a changed route may fail a risk, so 0 and 1 are both fine.
		measure "0 1" "$OUT/gateway2tyk" diff --fail-on none "$old" "$new" || exit 1
		if [ -z "$dw" ] || awk -v a="$wall" -v b="$dw" 'BEGIN {exit !(a < b)}'; then dw=$wall dr=$rss; fi
		i=$((i + 1))
	done
	summary=$(tail -n 1 "$OUT/diff-output.txt")
	ratio=$(awk -v d="$dw" -v r="$rw" 'BEGIN {printf "%.2f", d/r}')
	rows="$rows$(printf '| %6d | %4d | %8.2f s | %6d MB | %8.2f s | %6d MB | %5sx |' "$n" "$CHANGED" "$rw" "$rr" "$dw" "$dr" "$ratio")
"
	echo "  $summary"
done

echo
echo "| routes | changed | render wall | render peak RSS | diff wall | diff peak RSS | diff / render |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
printf '%s' "$rows"
