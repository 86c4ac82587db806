# SPDX-License-Identifier: MIT
# Reads the tables `swift package benchmark` prints and writes one line per benchmark: the
# median (p50) wall-clock time, malloc calls, retains and releases per operation (the table
# rounds them to whole numbers; scripts/microbench.sh --check shows the fewest with decimals).
/^[a-z]+\/.+/ && !/│/ { name = $0; next }
/│ Malloc \(total\)/ { split($0, c, "│"); gsub(/ /, "", c[5]); malloc[name] = c[5] }
/│ retains/ { split($0, c, "│"); gsub(/ /, "", c[5]); retains[name] = c[5] }
/│ releases/ { split($0, c, "│"); gsub(/ /, "", c[5]); releases[name] = c[5] }
/│ Time \(wall clock\)/ { split($0, c, "│"); gsub(/ /, "", c[5]); unit = ($0 ~ /\(ns\)/) ? "ns" : ($0 ~ /\(μs\)|\(us\)/ ? "us" : "?"); wall[name] = c[5] " " unit; order[++n] = name }
END {
  printf "%-62s %14s %9s %9s %9s\n", "benchmark (p50 per operation)", "wall clock", "mallocs", "retains", "releases"
  for (i = 1; i <= n; i++) printf "%-62s %14s %9s %9s %9s\n", order[i], wall[order[i]], malloc[order[i]], retains[order[i]], releases[order[i]]
}
