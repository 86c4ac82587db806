# SPDX-License-Identifier: MIT
# Reads the tables `swift package benchmark` prints and writes one line per benchmark:
# the median (p50) wall-clock time and malloc calls per operation.
# Prints one line per benchmark: p50 wall-clock ns and p50 mallocs per operation.
/^[a-z]+\/.+/ && !/│/ { name = $0; next }
/│ Malloc \(total\)/ { split($0, c, "│"); gsub(/ /, "", c[5]); malloc[name] = c[5] }
/│ Time \(wall clock\)/ { split($0, c, "│"); gsub(/ /, "", c[5]); unit = ($0 ~ /\(ns\)/) ? "ns" : ($0 ~ /\(μs\)|\(us\)/ ? "us" : "?"); wall[name] = c[5] " " unit; order[++n] = name }
END { printf "%-62s %14s %10s\n", "benchmark (p50 per operation)", "wall clock", "mallocs"; for (i = 1; i <= n; i++) printf "%-62s %14s %10s\n", order[i], wall[order[i]], malloc[order[i]] }
