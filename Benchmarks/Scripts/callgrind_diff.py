# SPDX-License-Identifier: MIT
"""Instructions per operation by function, from two callgrind runs of the same workload
with N and 2N iterations: their difference divided by N leaves out start-up, preparation
and warm-up.

    python3 callgrind_diff.py RUN_N.out RUN_2N.out N [--inclusive] [--top K]
"""
import re
import subprocess
import sys


def load(path, inclusive):
    out = subprocess.run(
        ["callgrind_annotate", "--inclusive=" + ("yes" if inclusive else "no"), "--auto=no", "--threshold=100", path],
        capture_output=True, text=True, check=True).stdout
    costs = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+(.*)$", line)
        if not m or "PROGRAM TOTALS" in m.group(2):
            continue
        name = m.group(2)
        name = name[4:] if name.startswith("???:") else re.sub(r"^[^:\s]*:", "", name, count=1)
        costs[name] = costs.get(name, 0) + int(m.group(1).replace(",", ""))
    return costs


def main(argv):
    inclusive = "--inclusive" in argv
    top = 30
    positional = []
    rest = iter(argv[1:])
    for arg in rest:
        if arg == "--top":
            top = int(next(rest))
        elif arg != "--inclusive":
            positional.append(arg)
    a_path, b_path, n = positional[0], positional[1], int(positional[2])
    a, b = load(a_path, inclusive), load(b_path, inclusive)
    rows = sorted(((b.get(k, 0) - a.get(k, 0)) / n, k) for k in set(a) | set(b))
    rows.reverse()
    print(f"{'instr/op':>10}  function ({'inclusive' if inclusive else 'self'} cost)")
    for cost, name in rows[:top]:
        if cost < 1:
            break
        print(f"{cost:10.0f}  {name[:140]}")


if __name__ == "__main__":
    main(sys.argv)
