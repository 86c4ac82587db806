// SPDX-License-Identifier: MIT
import DSBridgeServer
import Testing

/// The memory budget's default (PROTOCOL.md 2.6): a quarter of the cgroup's `memory.max`
/// when it is a number, else of physical memory.
@Suite("Memory limit and the budget's default")
struct MemoryLimitTests {
    @Test("the cgroup v2 path is the 0:: line of /proc/self/cgroup; cgroup v1 lines are not it")
    func cgroupPath() {
        #expect(MemoryLimit.cgroupPath(procSelfCgroup: "0::/system.slice/dsbridged.service\n") == "/system.slice/dsbridged.service")
        #expect(MemoryLimit.cgroupPath(procSelfCgroup: "4:memory:/docker/abc\n1:cpu:/\n0::/\n") == "/")
        #expect(MemoryLimit.cgroupPath(procSelfCgroup: "4:memory:/docker/abc\n1:cpu:/\n") == nil)
    }

    @Test("memory.max is a byte count or max (no limit)")
    func parseMemoryMax() {
        #expect(MemoryLimit.parseMemoryMax("536870912\n") == 536_870_912)
        #expect(MemoryLimit.parseMemoryMax("max\n") == nil)
        #expect(MemoryLimit.parseMemoryMax("0") == nil)
        #expect(MemoryLimit.parseMemoryMax("") == nil)
    }

    @Test("the default is a quarter of the cgroup limit when one is set, else of physical memory")
    func defaultBudget() {
        let gib = 1 << 30
        let limited = MemoryLimit.choose(cgroupMax: 2 * gib, cgroupFile: "/sys/fs/cgroup/x/memory.max", physicalBytes: 16 * gib)
        #expect(limited.source == .cgroup(path: "/sys/fs/cgroup/x/memory.max"))
        #expect(limited.defaultBudget == gib / 2)
        let unlimited = MemoryLimit.choose(cgroupMax: nil, cgroupFile: "/sys/fs/cgroup/memory.max", physicalBytes: 16 * gib)
        #expect(unlimited.source == .physicalMemory)
        #expect(unlimited.defaultBudget == 4 * gib)
        let above = MemoryLimit.choose(cgroupMax: 64 * gib, cgroupFile: "/sys/fs/cgroup/memory.max", physicalBytes: 16 * gib)
        #expect(above.defaultBudget == 4 * gib, "a cgroup limit above physical memory limits nothing")
    }

    @Test("this process gets a positive default")
    func current() {
        #expect(MemoryLimit.current().defaultBudget > 0)
    }
}
