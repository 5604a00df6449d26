// The least relay there can be, for bench/sandbox.ts: a TCP forwarder on 127.0.0.1 to one port,
// no proxy, no checks, no HTTP, native threads doing blocking read()/write() with a 256 KiB
// buffer each way (compiled by the TinyCC in Bun, bun:ffi cc). Whatever relays the sandbox's
// traffic (a proxy, a bridge) does at least this much per byte, so its share of a direct
// download is the ceiling of item 19.3 on the machine the bench runs on.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const LEAST_RELAY_C = String.raw`
typedef unsigned long size_t;
typedef long ssize_t;
typedef unsigned long pthread_t;
struct sockaddr_in { unsigned short family; unsigned short port; unsigned int addr; char zero[8]; };
int socket(int domain, int type, int protocol);
int bind(int fd, const void *addr, unsigned int len);
int listen(int fd, int backlog);
int accept(int fd, void *addr, void *len);
int connect(int fd, const void *addr, unsigned int len);
int getsockname(int fd, void *addr, unsigned int *len);
ssize_t read(int fd, void *buf, size_t n);
ssize_t write(int fd, const void *buf, size_t n);
int close(int fd);
int shutdown(int fd, int how);
void *malloc(size_t size);
void free(void *p);
int pthread_create(pthread_t *thread, void *attr, void *(*start)(void *), void *arg);
int pthread_join(pthread_t thread, void **result);
int pthread_detach(pthread_t thread);

#define BUFFER (256 * 1024)
#define LOOPBACK 0x0100007f /* 127.0.0.1, network order on a little-endian machine */

struct way { int from, to; };
static int upstream_port;

static unsigned short net16(int port) { return (unsigned short)(((port & 0xff) << 8) | ((port >> 8) & 0xff)); }

/* Copies from -> to until from ends, then ends the way into to. */
static void *copy(void *arg) {
  struct way *w = (struct way *)arg;
  char *buffer = malloc(BUFFER);
  for (;;) {
    ssize_t n = read(w->from, buffer, BUFFER);
    if (n <= 0) break;
    char *at = buffer;
    while (n > 0) {
      ssize_t written = write(w->to, at, n);
      if (written <= 0) { n = -1; break; }
      n -= written;
      at += written;
    }
    if (n < 0) break;
  }
  shutdown(w->to, 1);
  free(buffer);
  return 0;
}

/* One connection: the download way on this thread, the upload way on another, both sockets
   closed once both ways are done. */
static void *connection(void *arg) {
  int client = (int)(long)arg;
  int server = socket(2, 1, 0);
  struct sockaddr_in to = { 2, net16(upstream_port), LOOPBACK };
  if (connect(server, &to, sizeof to) != 0) { close(client); close(server); return 0; }
  struct way up = { client, server };
  struct way down = { server, client };
  pthread_t upload;
  pthread_create(&upload, 0, copy, &up);
  copy(&down);
  shutdown(client, 2); /* wakes the upload way if the client is still open */
  pthread_join(upload, 0);
  close(client);
  close(server);
  return 0;
}

static int listener = -1;

static void *accepting(void *arg) {
  for (;;) {
    int client = accept(listener, 0, 0);
    if (client < 0) return 0;
    pthread_t thread;
    if (pthread_create(&thread, 0, connection, (void *)(long)client) == 0) pthread_detach(thread);
    else close(client);
  }
}

/* Listens on 127.0.0.1 (a free port), forwards each connection to 127.0.0.1:port; returns the
   port it listens on, or -1. */
int least_relay_start(int port) {
  upstream_port = port;
  listener = socket(2, 1, 0);
  struct sockaddr_in at = { 2, 0, LOOPBACK };
  unsigned int len = sizeof at;
  if (listener < 0 || bind(listener, &at, sizeof at) != 0 || listen(listener, 16) != 0 || getsockname(listener, &at, &len) != 0) return -1;
  pthread_t thread;
  if (pthread_create(&thread, 0, accepting, 0) != 0) return -1;
  pthread_detach(thread);
  return net16(at.port);
}

/* Stops accepting (a connection being relayed finishes on its own). */
void least_relay_stop(void) {
  shutdown(listener, 2);
}
`;

export interface LeastRelay {
  port: number;
  stop(): void;
}

/** Starts the forwarder to 127.0.0.1:`port` in this process (Linux with TinyCC); throws where it cannot. */
export function startLeastRelay(port: number): LeastRelay {
  const { cc } = require("bun:ffi") as typeof import("bun:ffi");
  const folder = mkdtempSync(join(tmpdir(), "garuda-bench-relay-"));
  try {
    const source = join(folder, "leastRelay.c");
    writeFileSync(source, LEAST_RELAY_C);
    const { symbols } = cc({ source, library: ["pthread"], symbols: { least_relay_start: { args: ["int"], returns: "int" }, least_relay_stop: { args: [], returns: "void" } } });
    const listening = symbols.least_relay_start(port);
    if (listening <= 0) throw new Error("the least relay could not listen on 127.0.0.1");
    return { port: listening, stop: () => symbols.least_relay_stop() };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
