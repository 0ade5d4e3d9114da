#!/usr/bin/env bash
# Plots what delayq-bench wrote with --data-dir: the lateness distribution (latency mode) and
# throughput against backlog size (backlog mode), as PNGs.
# usage: bench/plot.sh DATA_DIR [OUT_DIR]      (OUT_DIR defaults to docs/img)
# e.g.:  delayq-bench --mode latency,backlog --runs 3 --data-dir /tmp/dq-data
#        bench/plot.sh /tmp/dq-data
# Needs gnuplot (Debian: gnuplot-nox).
set -euo pipefail

data=${1:?usage: bench/plot.sh DATA_DIR [OUT_DIR]}
out=${2:-$(dirname "$0")/../docs/img}
command -v gnuplot >/dev/null || { echo "plot.sh: gnuplot is not installed" >&2; exit 1; }
mkdir -p "$out"
made=()

# Lateness: the cumulative distribution of each variant, Redis clock (1 ms steps) and local clock.
lat_files=()
for v in quiet busy; do
    [[ -s "$data/latency_$v.dat" ]] && lat_files+=("$v")
done
if ((${#lat_files[@]} > 0)); then
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    plots=()
    for v in "${lat_files[@]}"; do
        n=$(wc -l <"$data/latency_$v.dat")
        # column 1: Redis-clock lateness, column 2: local-clock lateness (ms)
        sort -g -k1,1 "$data/latency_$v.dat" | awk -v n="$n" '{print $1, NR / n}' >"$tmp/$v.redis"
        sort -g -k2,2 "$data/latency_$v.dat" | awk -v n="$n" '{print $2, NR / n}' >"$tmp/$v.local"
        plots+=("'$tmp/$v.local' using 1:2 with lines lw 2 title '$v, local clock (handler start)'")
        plots+=("'$tmp/$v.redis' using 1:2 with steps lw 1 dt 2 title '$v, Redis clock (delivered_at)'")
    done
    joined=$(IFS=,; echo "${plots[*]}")
    # Up to the 99.9th percentile of the local-clock lateness (at least 3 ms): the tail beyond is
    # in the bench's max figures.
    xmax=$(cat "$tmp"/*.local | sort -g -k1,1 | awk '{v[NR] = $1} END {
        i = int(NR * 0.999); if (i < 1) i = NR; x = v[i] * 1.1; if (x < 3) x = 3; print x }')
    gnuplot <<EOF
set terminal pngcairo size 900,540 font ",10" noenhanced
set output '$out/lateness.png'
set title 'delayq lateness: how long after its due time a message reaches its handler'
set xlabel 'lateness (ms)'
set ylabel 'fraction of messages'
set key bottom right
set grid
set yrange [0:1.02]
set xrange [-0.5:$xmax]
plot $joined
EOF
    made+=("$out/lateness.png")
fi

# Throughput against backlog size: columns backlog, enqueue_batch, enqueue_single, e2e_c64,
# then the same three on the empty queue measured in alternation with them (dashed).
if [[ -s "$data/backlog.dat" ]]; then
    gnuplot <<EOF
set terminal pngcairo size 900,540 font ",10" noenhanced
set output '$out/backlog.png'
set title 'delayq throughput with messages pending in the far future (same queue), and on an empty queue in alternation'
set xlabel 'pending messages'
set ylabel 'messages per second'
set format x '%.0s%c'
set key outside bottom center horizontal
set grid
set yrange [0:*]
set style data linespoints
plot '$data/backlog.dat' using 1:2 lw 2 pt 7 lc 1 title 'enqueue, batch', \
     '' using 1:3 lw 2 pt 5 lc 2 title 'enqueue, single', \
     '' using 1:4 lw 2 pt 9 lc 3 title 'end to end, c64', \
     '' using 1:5 lw 1 pt 6 lc 1 dt 2 title 'batch, paired empty queue', \
     '' using 1:6 lw 1 pt 4 lc 2 dt 2 title 'single, paired empty queue', \
     '' using 1:7 lw 1 pt 8 lc 3 dt 2 title 'e2e, paired empty queue'
EOF
    made+=("$out/backlog.png")
fi

if ((${#made[@]} == 0)); then
    echo "plot.sh: no latency_*.dat or backlog.dat in $data" >&2
    exit 1
fi
printf 'wrote %s\n' "${made[@]}"
