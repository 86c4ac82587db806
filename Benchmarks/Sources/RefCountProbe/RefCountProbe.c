// SPDX-License-Identifier: MIT
// Strong retain and release counts, through the Swift runtime's instrumentation hooks.
//
// The runtime keeps function pointers (_swift_retain, _swift_release, their _n forms,
// _swift_tryRetain) and a flag: while the flag is set, swift_retain, swift_release and
// their _n forms call through the pointers, whoever calls them: our code, Foundation, and
// the standard library itself (the bridge-object entry points jump to them too). Replacing
// the pointers with counting functions counts every strong retain and release in the
// process. ordo-one/benchmark's ARC metrics do the same.
//
// On Linux with Swift 6.3 that crashes (ordo-one/benchmark issue 349): with the flag set,
// swift_retain goes through a private adapter (`_swift_retain_adapter`) that masks the
// pointer's top byte before it calls _swift_retain, so a value the runtime must ignore
// (an immortal or small String's bits, top bit set) turns into a wild pointer that gets
// retained. The fix in the runtime (swiftlang/swift 88924) is not in 6.3.1. Here the
// adapter's slot, found by name in libswiftCore's symbol table, gets a counting function
// that passes the value on unmasked; the original retain function checks and masks it as
// the fast path does. If the symbol is not there (another runtime), installation fails
// and says why, rather than counting wrongly or crashing.
//
// Counters are per thread (a slot each, no shared cache line on the hot path) and summed
// when read.
#define _GNU_SOURCE
#include "RefCountProbe.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct HeapObject HeapObject;
typedef HeapObject *(*retain_fn)(HeapObject *);
typedef HeapObject *(*retain_n_fn)(HeapObject *, uint32_t);
typedef void (*release_fn)(HeapObject *);
typedef void (*release_n_fn)(HeapObject *, uint32_t);

// Exported by libswiftCore for instruments (swift/Runtime/InstrumentsSupport.h).
extern retain_fn _swift_retain;
extern retain_n_fn _swift_retain_n;
extern retain_fn _swift_tryRetain;
extern release_fn _swift_release;
extern release_n_fn _swift_release_n;
extern _Atomic(bool) _swift_enableSwizzlingOfAllocationAndRefCountingFunctions_forInstrumentsOnly;
extern HeapObject *swift_retain(HeapObject *);

// ---------------------------------------------------------------------------------------
// Per-thread counters

enum { slot_count = 256 };

typedef struct {
    _Atomic(uint64_t) retains;
    _Atomic(uint64_t) releases;
    char padding[64 - 2 * sizeof(uint64_t)];
} slot_t;

// Slot 0 is shared (atomic adds) by threads beyond slot_count; the others have one writer.
static slot_t slots[slot_count] __attribute__((aligned(64)));
static _Atomic(int) slots_taken = 1;
static __thread int my_slot = -1;

static inline slot_t *current_slot(void) {
    if (__builtin_expect(my_slot < 0, 0)) {
        int taken = atomic_fetch_add_explicit(&slots_taken, 1, memory_order_relaxed);
        my_slot = taken < slot_count ? taken : 0;
    }
    return &slots[my_slot];
}

static inline void add(_Atomic(uint64_t) *counter, uint64_t n, bool shared) {
    if (shared) {
        atomic_fetch_add_explicit(counter, n, memory_order_relaxed);
    } else {
        atomic_store_explicit(counter, atomic_load_explicit(counter, memory_order_relaxed) + n, memory_order_relaxed);
    }
}

static inline void count_retains(uint64_t n) {
    slot_t *slot = current_slot();
    add(&slot->retains, n, slot == &slots[0]);
}

static inline void count_releases(uint64_t n) {
    slot_t *slot = current_slot();
    add(&slot->releases, n, slot == &slots[0]);
}

// ---------------------------------------------------------------------------------------
// Hooks: count, then call the runtime's own implementation (saved at installation).

static retain_fn original_retain;
static retain_n_fn original_retain_n;
static retain_fn original_try_retain;
static release_fn original_release;
static release_n_fn original_release_n;

// Takes the adapter's place: the value as swift_retain got it, unmasked.
static HeapObject *counting_retain(HeapObject *object) {
    count_retains(1);
    return original_retain(object);
}

static HeapObject *counting_retain_n(HeapObject *object, uint32_t n) {
    count_retains(n);
    return original_retain_n(object, n);
}

static HeapObject *counting_try_retain(HeapObject *object) {
    HeapObject *result = original_try_retain(object);
    if (result != NULL) {
        count_retains(1);
    }
    return result;
}

static void counting_release(HeapObject *object) {
    count_releases(1);
    original_release(object);
}

static void counting_release_n(HeapObject *object, uint32_t n) {
    count_releases(n);
    original_release_n(object, n);
}

// ---------------------------------------------------------------------------------------
// Finding the retain adapter's slot: a local symbol, so only in the .symtab of the file.

static const char *failure;

/// The value of each of `count` symbols `names` in the ELF file at `path` (0 when absent).
static void find_symbols(const char *path, const char *const *names, uint64_t *values, int count) {
    for (int i = 0; i < count; i++) {
        values[i] = 0;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(Elf64_Ehdr)) {
        close(fd);
        return;
    }
    size_t size = (size_t)st.st_size;
    const unsigned char *file = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (file == MAP_FAILED) {
        return;
    }
    const Elf64_Ehdr *header = (const Elf64_Ehdr *)file;
    if (memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 || header->e_ident[EI_CLASS] != ELFCLASS64
        || header->e_shoff + (uint64_t)header->e_shnum * sizeof(Elf64_Shdr) > size) {
        munmap((void *)file, size);
        return;
    }
    const Elf64_Shdr *sections = (const Elf64_Shdr *)(file + header->e_shoff);
    for (int s = 0; s < header->e_shnum; s++) {
        if (sections[s].sh_type != SHT_SYMTAB || sections[s].sh_link >= header->e_shnum) {
            continue;
        }
        const Elf64_Shdr *strings = &sections[sections[s].sh_link];
        if (sections[s].sh_offset + sections[s].sh_size > size || strings->sh_offset + strings->sh_size > size) {
            continue;
        }
        const Elf64_Sym *symbols = (const Elf64_Sym *)(file + sections[s].sh_offset);
        size_t symbol_count = sections[s].sh_size / sizeof(Elf64_Sym);
        const char *names_base = (const char *)(file + strings->sh_offset);
        for (size_t k = 0; k < symbol_count; k++) {
            if (symbols[k].st_name >= strings->sh_size) {
                continue;
            }
            const char *name = names_base + symbols[k].st_name;
            size_t left = strings->sh_size - symbols[k].st_name;
            for (int i = 0; i < count; i++) {
                if (values[i] == 0 && strnlen(name, left) == strlen(names[i]) && strcmp(name, names[i]) == 0) {
                    values[i] = symbols[k].st_value;
                }
            }
        }
    }
    munmap((void *)file, size);
}

/// The slot of `_swift_retain_adapter` in the loaded libswiftCore, checked to hold the
/// adapter function; NULL (with `failure` set) otherwise.
static retain_fn *find_retain_adapter_slot(void) {
    Dl_info info;
    struct link_map *library = NULL;
    if (dladdr1((void *)&swift_retain, &info, (void **)&library, RTLD_DL_LINKMAP) == 0 || library == NULL
        || info.dli_fname == NULL) {
        failure = "cannot find the library that defines swift_retain";
        return NULL;
    }
    static const char *const names[] = {
        "_ZL21_swift_retain_adapter",
        "_ZL25_swift_retain_adapterImplPN5swift10HeapObjectE",
    };
    uint64_t values[2];
    find_symbols(info.dli_fname, names, values, 2);
    if (values[0] == 0 || values[1] == 0) {
        failure = "this Swift runtime has no _swift_retain_adapter in its symbol table (not the 6.3 runtime "
                  "this probe knows)";
        return NULL;
    }
    retain_fn *slot = (retain_fn *)(library->l_addr + values[0]);
    if ((uintptr_t)*slot != library->l_addr + values[1]) {
        failure = "_swift_retain_adapter does not hold the adapter function";
        return NULL;
    }
    return slot;
}

// ---------------------------------------------------------------------------------------

static _Atomic(int) installed = 0;  // 0 not tried, 1 installed, -1 failed

int refcount_probe_install(void) {
    int state = atomic_load(&installed);
    if (state != 0) {
        return state == 1 ? 0 : -1;
    }
    retain_fn *adapter_slot = find_retain_adapter_slot();
    if (adapter_slot == NULL) {
        atomic_store(&installed, -1);
        return -1;
    }
    original_retain = _swift_retain;
    original_retain_n = _swift_retain_n;
    original_try_retain = _swift_tryRetain;
    original_release = _swift_release;
    original_release_n = _swift_release_n;
    // The flag is still clear, so no thread reads these yet.
    *adapter_slot = counting_retain;
    _swift_retain_n = counting_retain_n;
    _swift_tryRetain = counting_try_retain;
    _swift_release = counting_release;
    _swift_release_n = counting_release_n;
    atomic_store(&installed, 1);
    return 0;
}

const char *refcount_probe_error(void) {
    return failure;
}

void refcount_probe_set_enabled(int enabled) {
    if (atomic_load(&installed) == 1) {
        atomic_store(&_swift_enableSwizzlingOfAllocationAndRefCountingFunctions_forInstrumentsOnly, enabled != 0);
    }
}

refcount_probe_counts refcount_probe_read(void) {
    refcount_probe_counts total = {0, 0};
    int taken = atomic_load_explicit(&slots_taken, memory_order_relaxed);
    if (taken > slot_count) {
        taken = slot_count;
    }
    for (int i = 0; i < taken; i++) {
        total.retains += atomic_load_explicit(&slots[i].retains, memory_order_relaxed);
        total.releases += atomic_load_explicit(&slots[i].releases, memory_order_relaxed);
    }
    return total;
}
