# SPDX-License-Identifier: MIT
# Reads the tables `swift package benchmark` prints and writes one line per benchmark: the
# median (p50) wall-clock time, malloc calls, retains and releases per operation (the table
# rounds them to whole numbers, or thousands when marked K; scripts/microbench.sh --check
# shows the fewest with a decimal).
function p50(line,    c, value) {
  split(line, c, "│"); value = c[5]; gsub(/ /, "", value)
  if (c[2] ~ /\(K\)/) value = value "K"
  if (c[2] ~ /\(M\)/) value = value "M"
  return value
}
/^[a-z]+\/.+/ && !/│/ { name = $0; next }
/│ Malloc \(total\)/ { malloc[name] = p50($0) }
/│ retains/ { retains[name] = p50($0) }
/│ releases/ { releases[name] = p50($0) }
/│ Time \(wall clock\)/ { unit = ($0 ~ /\(ns\)/) ? "ns" : ($0 ~ /\(μs\)|\(us\)/ ? "us" : "?"); wall[name] = p50($0) " " unit; order[++n] = name }
END {
  printf "%-62s %14s %9s %9s %9s\n", "benchmark (p50 per operation)", "wall clock", "mallocs", "retains", "releases"
  for (i = 1; i <= n; i++) printf "%-62s %14s %9s %9s %9s\n", order[i], wall[order[i]], malloc[order[i]], retains[order[i]], releases[order[i]]
}
