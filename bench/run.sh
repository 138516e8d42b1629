#!/bin/sh
# make bench: builds gateway2tyk and the no-op baseline (bench/noop: framework.Execute with a processor that does
# nothing), generates a ResourceList of N routes for each size (bench/gen, seed 1) into bench/out/, and measures
# the wall time and the peak RSS of both on the same inputs, one after the other, RUNS times each (the best run
# of each is reported; a shared machine makes single runs noisy). gateway2tyk is measured cold (its memory of the
# API server's verdicts empty) and warm (that memory full, as a render of the same repository again finds it), and
# warm again with GATEWAY2TYK_LIBRARY_IO=1 (reading and writing through the libraries the hand-written writers copy:
# fn/internal/libio), whose output must be the same bytes. Prints a table and the growth of the cold render's time from one size to the next.
#
#   SIZES    route counts                      (default "1000 10000"; e.g. SIZES="1000 10000 50000")
#   RUNS     runs of each binary at each size  (default 2)
#   TIMEOUT  seconds allowed for one run       (default 900)
#   SEED     generator seed                    (default 1)
#   HOSTNAMES hostnames of each route          (default 1; 2 makes the fleet whose output is ~14x its input)
#   FLEET    default | heavy (every rule a filter and 3-4 weighted backends) | flow (written as people write
#            YAML: small collections in flow style, comments) | heavy-flow (both)
#   PROFILE  the RenderConfig's spec.profile: operator (default) or gateway-api
#
# Plain sh: every step checks its own status (no pipefail).

SIZES=${SIZES:-"1000 10000"}
RUNS=${RUNS:-2}
TIMEOUT=${TIMEOUT:-900}
SEED=${SEED:-1}
HOSTNAMES=${HOSTNAMES:-1}
FLEET=${FLEET:-default}
case "$FLEET" in
default) FLEET_FLAGS= ;;
heavy) FLEET_FLAGS=-heavy ;;
flow) FLEET_FLAGS=-flow ;;
heavy-flow) FLEET_FLAGS="-heavy -flow" ;;
*) echo "bench: FLEET must be default, heavy, flow or heavy-flow (got $FLEET)" >&2; exit 2 ;;
esac
PROFILE=${PROFILE:-}
case "$PROFILE" in
"" | operator | gateway-api) ;;
*) echo "bench: PROFILE must be operator or gateway-api (got $PROFILE)" >&2; exit 2 ;;
esac
GO=${GO:-go}
OUT=bench/out
# The memory of verdicts (apiserver.Memory) the runs use: emptied before each cold run.
GATEWAY2TYK_CACHE=$(pwd)/$OUT/verdicts
export GATEWAY2TYK_CACHE

cd "$(dirname "$0")/.." || exit 1
mkdir -p "$OUT" || exit 1

. bench/gnutime.sh
need_gnu_time bench || exit 1

echo "bench: building"
CGO_ENABLED=0 $GO build -trimpath -o "$OUT/gateway2tyk" ./cmd/gateway2tyk || exit 1
CGO_ENABLED=0 $GO build -trimpath -o "$OUT/noop" ./bench/noop || exit 1
# The same binary with reading and writing routed through the libraries its writers copy (fn/internal/libio).
printf '#!/bin/sh\nGATEWAY2TYK_LIBRARY_IO=1 exec "%s" "$@"\n' "$OUT/gateway2tyk" >"$OUT/gateway2tyk-libio" &&
	chmod +x "$OUT/gateway2tyk-libio" || exit 1
CGO_ENABLED=0 $GO build -trimpath -o "$OUT/gen" ./bench/gen || exit 1

echo "bench: HOSTNAMES=$HOSTNAMES FLEET=$FLEET; machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)," \
	"$(awk '/^MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo) memory, load average $(cut -d' ' -f1-3 /proc/loadavg)"

# measure BIN INPUT: runs BIN < INPUT once and sets wall (s), rss (MB) and cpu (user+sys s); fails when the
# binary fails (the render's inputs hold warnings only, so it exits 0) or runs out of time.
measure() {
	if ! timeout "$TIMEOUT" "$TIME" -o "$OUT/time.txt" -f '%e %M %U %S' "$1" <"$2" >"$OUT/output.yaml" 2>"$OUT/stderr.txt"; then
		echo "bench: $1 < $2 failed or took longer than ${TIMEOUT}s:" >&2
		tail -n 5 "$OUT/stderr.txt" >&2
		return 1
	fi
	set -- $(tail -n 1 "$OUT/time.txt")
	wall=$1
	rss=$(awk -v k="$2" 'BEGIN {printf "%.0f", k/1024}')
	cpu=$(awk -v u="$3" -v s="$4" 'BEGIN {printf "%.2f", u+s}')
}

# less A B: true when A < B.
less() { awk -v a="$1" -v b="$2" 'BEGIN {exit !(a < b)}'; }

# best_of INPUT: runs the baseline, gateway2tyk cold (an empty memory of verdicts: the API server's Validate runs
# on every object) and gateway2tyk warm (the memory the cold run filled, as a render of the same repository again
# finds it) in turn, RUNS times each, so that all see the same machine; sets b_*, g_* (cold) and w_* (warm)
# (wall, rss, cpu) from the run with the least wall time of each.
best_of() {
	b_wall= g_wall= w_wall= l_wall=
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		measure "$OUT/noop" "$1" || return 1
		if [ -z "$b_wall" ] || less "$wall" "$b_wall"; then b_wall=$wall b_rss=$rss b_cpu=$cpu; fi
		rm -rf "$GATEWAY2TYK_CACHE"
		measure "$OUT/gateway2tyk" "$1" || return 1
		if [ -z "$g_wall" ] || less "$wall" "$g_wall"; then g_wall=$wall g_rss=$rss g_cpu=$cpu; fi
		measure "$OUT/gateway2tyk" "$1" || return 1
		if [ -z "$w_wall" ] || less "$wall" "$w_wall"; then w_wall=$wall w_rss=$rss w_cpu=$cpu; fi
		mv "$OUT/output.yaml" "$OUT/output-hand.yaml"
		measure "$OUT/gateway2tyk-libio" "$1" || return 1
		if [ -z "$l_wall" ] || less "$wall" "$l_wall"; then l_wall=$wall l_rss=$rss; fi
		if ! cmp -s "$OUT/output.yaml" "$OUT/output-hand.yaml"; then
			echo "bench: the output with GATEWAY2TYK_LIBRARY_IO=1 differs from the hand-written writers' (TestLibraryIOAlike says where)" >&2
			return 1
		fi
		i=$((i + 1))
	done
}

rows=
prev_n= prev_wall=
for n in $SIZES; do
	input="$OUT/routes-$n-h$HOSTNAMES-$FLEET${PROFILE:+-$PROFILE}.yaml"
	# FLEET_FLAGS is unquoted on purpose: it holds zero, one or two flags.
	if ! "$OUT/gen" -routes "$n" -seed "$SEED" -hostnames "$HOSTNAMES" -profile "$PROFILE" $FLEET_FLAGS >"$input"; then
		echo "bench: generating $n routes failed" >&2
		exit 1
	fi
	mb=$(awk -v b="$(wc -c <"$input")" 'BEGIN {printf "%.1f", b/1048576}')
	echo "bench: $n routes ($mb MB): baseline and gateway2tyk, best of $RUNS"
	best_of "$input" || exit 1
	apis=$(grep -c 'gateway2tyk.io/api-id:' "$OUT/output.yaml")
	out_mb=$(awk -v b="$(wc -c <"$OUT/output.yaml")" 'BEGIN {printf "%.0f", b/1048576}')
	row=$(awk -v n="$n" -v mb="$mb" -v apis="$apis" -v gw="$g_wall" -v gr="$g_rss" -v gc="$g_cpu" -v bw="$b_wall" -v br="$b_rss" \
		-v bc="$b_cpu" -v om="$out_mb" -v ww="$w_wall" -v wr="$w_rss" -v wc="$w_cpu" -v lw="$l_wall" -v lr="$l_rss" 'BEGIN {
		printf "| %6d | %5.1f | %4d | %6d | %7.2f s | %6d MB | %6.2f s | %7.2f s | %6d MB | %6.2f s | %7.2f s | %6d MB | %6.2f s | %5.2fx | %5.2fx | %5.2fx | %5.2fx | %7.2f s | %6d MB | %5.2fx |",
			n, mb, om, apis, gw, gr, gc, ww, wr, wc, bw, br, bc, gw/bw, gr/br, ww/bw, wr/br, lw, lr, lw/ww }')
	rows="$rows$row
"
	if [ -n "$prev_n" ]; then
		growth="${growth}gateway2tyk cold time from $prev_n to $n routes: $(awk -v a="$g_wall" -v b="$prev_wall" 'BEGIN {printf "%.2fx", a/b}')
"
	fi
	prev_n=$n prev_wall=$g_wall
done
rm -rf "$OUT/output.yaml" "$OUT/output-hand.yaml" "$OUT/stderr.txt" "$OUT/time.txt" "$GATEWAY2TYK_CACHE"

echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| routes | input MB | output MB | APIs | cold wall | cold peak RSS | cold CPU | warm wall | warm peak RSS | warm CPU | baseline wall | baseline peak RSS | baseline CPU | cold wall ratio | cold RSS ratio | warm wall ratio | warm RSS ratio | warm wall, library I/O | warm peak RSS, library I/O | library I/O / hand-written (warm) |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
printf '%s' "$rows"
if [ -n "$growth" ]; then
	echo
	printf '%s' "$growth"
fi
