/* A slower disk for benchmarks: an LD_PRELOAD shim that sleeps SLOWSYNC_US microseconds
 * (default 2000) before each sync_file_range, fsync and fdatasync, then syncs.
 *
 *   gcc -shared -fPIC -O2 -o /tmp/slowsync.so bench/slowsync.c -ldl
 *   printf '#!/bin/sh\nLD_PRELOAD=/tmp/slowsync.so exec target/release/sitefeed "$@"\n' > /tmp/slow.sh
 *
 * then point the harness's SITEFEED_BIN at /tmp/slow.sh (exec keeps the pid it measures).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>
#include <dlfcn.h>
#include <stdlib.h>
/* The delay: SLOWSYNC_US when it is a number below one second, else 2000. */
static useconds_t delay_us(void) {
  const char *e = getenv("SLOWSYNC_US");
  char *end;
  unsigned long us;
  if (!e || !*e) return 2000;
  us = strtoul(e, &end, 10);
  return (*end || us >= 1000000) ? 2000 : (useconds_t)us;
}
int sync_file_range(int fd, off64_t off, off64_t n, unsigned int flags) {
  static int (*real)(int, off64_t, off64_t, unsigned int);
  if (!real) real = dlsym(RTLD_NEXT, "sync_file_range");
  usleep(delay_us());
  return real(fd, off, n, flags);
}
int fsync(int fd) {
  static int (*real)(int);
  if (!real) real = dlsym(RTLD_NEXT, "fsync");
  usleep(delay_us());
  return real(fd);
}
int fdatasync(int fd) {
  static int (*real)(int);
  if (!real) real = dlsym(RTLD_NEXT, "fdatasync");
  usleep(delay_us());
  return real(fd);
}
