#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The fault proxy of scripts/dsbtest/fault_proxy.py from the command line: a loopback TCP
proxy in front of a daemon that cuts, resets, stalls and blackholes connections, driven by a
seed. Runs until Ctrl-C (or --duration) and prints its counters every few seconds.

    scripts/fault_proxy.py --listen-port 9090 --target-port 8080 --seed 7 --cut-rate 0.5
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dsbtest.fault_proxy import FaultProxy  # noqa: E402

def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--listen-port", type=int, default=0, help="port on 127.0.0.1 (0 = any free one)")
    parser.add_argument("--target-port", type=int, required=True, help="port of the daemon on --target-host")
    parser.add_argument("--target-host", default="127.0.0.1")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cut-rate", type=float, default=1.0,
                        help="probability that a connection (and, after a stall, its next byte budget) gets a fault")
    parser.add_argument("--min-bytes", type=int, default=16, help="smallest byte budget before a fault (log-uniform)")
    parser.add_argument("--max-bytes", type=int, default=65536, help="largest byte budget before a fault")
    parser.add_argument("--weights", default="0.45,0.35,0.20,0", help="relative weights of cut,reset,stall[,blackhole]")
    parser.add_argument("--hold-ms", default="100,3000", help="min,max time a blackholed daemon side stays open")
    parser.add_argument("--stall-ms", default="5,150", help="min,max stall in ms")
    parser.add_argument("--duration", type=float, default=0, help="stop after this many seconds (0 = until Ctrl-C)")
    parser.add_argument("--quiet", action="store_true", help="do not log each fault")
    o = parser.parse_args()
    w = [float(x) for x in o.weights.split(",")] + [0.0]
    smin, smax = (int(x) for x in o.stall_ms.split(","))
    hmin, hmax = (int(x) for x in o.hold_ms.split(","))
    proxy = FaultProxy(o.target_port, seed=o.seed, listen_port=o.listen_port, target_host=o.target_host,
                       cut_rate=o.cut_rate, min_bytes=o.min_bytes, max_bytes=o.max_bytes,
                       weight_cut=w[0], weight_reset=w[1], weight_stall=w[2], weight_blackhole=w[3],
                       stall_min_ms=smin, stall_max_ms=smax, hold_min_ms=hmin, hold_max_ms=hmax,
                       verbose=not o.quiet)
    port = proxy.start()
    print("fault-proxy listening port=%d target=%s:%d seed=%d" % (port, o.target_host, o.target_port, o.seed), flush=True)
    start = time.monotonic()
    try:
        while not o.duration or time.monotonic() - start < o.duration:
            time.sleep(min(5.0, o.duration or 5.0))
            print("fault-proxy %s" % proxy.counters(), flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        proxy.stop()
    print("fault-proxy final %s" % proxy.counters(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
