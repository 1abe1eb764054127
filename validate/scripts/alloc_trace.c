/* An LD_PRELOAD shim that logs the large blocks a process allocates and frees, for alloc_trace.py.
 *
 * Issue #16: a Python run of a torchvision network faults in more fresh pages than the engine's
 * fresh-memory term counts, and a different amount in each fresh process. This records what the
 * allocator was asked for (every block of kMinBytes or more, its size, address and whether glibc
 * mapped it on its own), so the requests can be compared across processes and replayed through a
 * model of glibc's heap. It only logs: every call goes on to glibc unchanged.
 *
 * Build (not part of the CMake build: it replaces malloc, which the sanitizer builds also do):
 *     cc -O2 -shared -fPIC -o alloc_trace.so validate/scripts/alloc_trace.c -ldl -lpthread
 * The driver calls alloc_trace_mark(step) before each timed step, -1 after it, and
 * alloc_trace_dump(path) at the end; nothing is logged outside a step.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { kMinBytes = 64 * 1024, kMaxEvents = 1 << 22, kSlots = 1 << 20 };
static const uintptr_t kTombstone = 1;

typedef struct {
  char op; /* 'a' allocated, 'f' freed */
  int step;
  size_t bytes;
  uintptr_t address;
  int mapped; /* glibc's IS_MMAPPED bit of the chunk header: the block has pages of its own */
} Event;

static Event events[kMaxEvents];
static long event_count;
static uintptr_t live[kSlots]; /* open addressing: the large blocks logged and not yet freed */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int step = -1;

static void *(*real_malloc)(size_t);
static void (*real_free)(void *);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);

/* dlsym may allocate before the real functions are known: serve it from a static arena. */
static char bootstrap[1 << 16];
static size_t bootstrap_used;
static int resolving;

static void *bootstrap_alloc(size_t bytes) {
  void *p = bootstrap + bootstrap_used;
  bootstrap_used += (bytes + 15) & ~(size_t)15;
  return bootstrap_used <= sizeof bootstrap ? p : NULL;
}

static void resolve(void) {
  if (real_malloc) return;
  resolving = 1;
  real_malloc = dlsym(RTLD_NEXT, "malloc");
  real_free = dlsym(RTLD_NEXT, "free");
  real_calloc = dlsym(RTLD_NEXT, "calloc");
  real_realloc = dlsym(RTLD_NEXT, "realloc");
  real_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
  real_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
  resolving = 0;
}

static size_t slot_of(uintptr_t address) { return (address >> 4) & (kSlots - 1); }

static void log_allocation(void *p, size_t bytes) {
  if (step < 0 || !p || bytes < kMinBytes) return;
  const uintptr_t address = (uintptr_t)p;
  pthread_mutex_lock(&lock);
  size_t s = slot_of(address);
  while (live[s] && live[s] != kTombstone) s = (s + 1) & (kSlots - 1);
  live[s] = address;
  if (event_count < kMaxEvents)
    events[event_count++] = (Event){'a', step, bytes, address, (int)(((const size_t *)p)[-1] & 2)};
  pthread_mutex_unlock(&lock);
}

static void log_free(void *p) {
  if (step < 0 || !p) return;
  const uintptr_t address = (uintptr_t)p;
  pthread_mutex_lock(&lock);
  for (size_t s = slot_of(address); live[s]; s = (s + 1) & (kSlots - 1)) {
    if (live[s] != address) continue;
    live[s] = kTombstone;
    if (event_count < kMaxEvents) events[event_count++] = (Event){'f', step, 0, address, 0};
    break;
  }
  pthread_mutex_unlock(&lock);
}

void alloc_trace_mark(int new_step) { step = new_step; }

int alloc_trace_dump(const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  for (long i = 0; i < event_count; ++i)
    fprintf(f, "%d %c %zu %lx %d\n", events[i].step, events[i].op, events[i].bytes, (unsigned long)events[i].address,
            events[i].mapped);
  return fclose(f);
}

void *malloc(size_t bytes) {
  if (resolving) return bootstrap_alloc(bytes);
  resolve();
  void *p = real_malloc(bytes);
  log_allocation(p, bytes);
  return p;
}

void free(void *p) {
  if ((char *)p >= bootstrap && (char *)p < bootstrap + sizeof bootstrap) return;
  resolve();
  log_free(p);
  real_free(p);
}

void *calloc(size_t count, size_t size) {
  if (resolving) {
    void *p = bootstrap_alloc(count * size);
    if (p) memset(p, 0, count * size);
    return p;
  }
  resolve();
  void *p = real_calloc(count, size);
  log_allocation(p, count * size);
  return p;
}

void *realloc(void *old, size_t bytes) {
  resolve();
  log_free(old);
  void *p = real_realloc(old, bytes);
  log_allocation(p, bytes);
  return p;
}

int posix_memalign(void **out, size_t alignment, size_t bytes) {
  resolve();
  const int status = real_posix_memalign(out, alignment, bytes);
  if (status == 0) log_allocation(*out, bytes);
  return status;
}

void *aligned_alloc(size_t alignment, size_t bytes) {
  resolve();
  void *p = real_aligned_alloc(alignment, bytes);
  log_allocation(p, bytes);
  return p;
}
