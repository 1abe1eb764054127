#!/bin/sh
# Runs both fuzz targets from the build folder (build-fuzz/fuzz), one process each, and keeps the
# corpora, logs and any crash artifacts there, out of the source tree.
#   sh build-fuzz/fuzz/run.sh [SECONDS_PER_TARGET] [net|hw|onnx|calibrate|trace ...]   (default 330 s each, net and hw)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dicts="@CMAKE_CURRENT_SOURCE_DIR@"
secs=${1:-330}
[ $# -gt 0 ] && shift
targets=${*:-net hw}
for t in $targets; do
  # An .onnx seed (a stripped export) is tens to hundreds of kB (swin_v2_tiny, the largest, 394 kB: its
  # shape arithmetic is many Constant nodes); text seeds are small.
  maxlen=8192; dict="-dict=$dicts/$t.dict"
  [ "$t" = onnx ] && maxlen=409600 && dict=
  mkdir -p "$here/corpus-$t" "$here/artifacts-$t"
  # 15 s and 2 GiB: an input that hangs or runs memory away is a finding, like a crash. (5 s gave
  # false alarms on a loaded 2-core machine: a legal 36k-layer network takes 0.9 s of CPU under ASan.)
  "$here/fuzz_$t" "$here/corpus-$t" "$here/seed-$t" $dict -max_total_time="$secs" \
    -rss_limit_mb=2048 -timeout=15 -max_len=$maxlen -print_final_stats=1 \
    -artifact_prefix="$here/artifacts-$t/" >"$here/fuzz-$t.log" 2>&1 || echo "fuzz_$t stopped: see $here/fuzz-$t.log"
  grep -E 'DONE|ERROR|SUMMARY|stat::' "$here/fuzz-$t.log" || true
done
