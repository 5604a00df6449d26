// A bare relay, for bench/sandbox.ts: a TCP forwarder on 127.0.0.1 to one port, with no proxy,
// no checks and no HTTP. A native thread per connection moves both ways with non-blocking
// recv()/send() through a 256 KiB buffer each way and poll() between them (compiled by the TinyCC
// in Bun, bun:ffi cc). It was the fastest of the plain designs tried on a 2-core VM: two blocking
// threads per connection passed ~60 % of a direct download and splice() through a pipe ~13 %,
// against ~63 % for this one. Whatever relays the sandbox's traffic (a proxy, a bridge) does at
// least this much per byte, so this row says how far any relay gets on the machine the bench runs on.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const BARE_RELAY_C = String.raw`
typedef unsigned long size_t;
typedef long ssize_t;
typedef unsigned long pthread_t;
struct sockaddr_in { unsigned short family; unsigned short port; unsigned int addr; char zero[8]; };
struct pollfd { int fd; short events; short revents; };
int socket(int domain, int type, int protocol);
int bind(int fd, const void *addr, unsigned int len);
int listen(int fd, int backlog);
int accept(int fd, void *addr, void *len);
int connect(int fd, const void *addr, unsigned int len);
int getsockname(int fd, void *addr, unsigned int *len);
ssize_t recv(int fd, void *buf, size_t n, int flags);
ssize_t send(int fd, const void *buf, size_t n, int flags);
int poll(struct pollfd *fds, unsigned long nfds, int timeout);
int close(int fd);
int shutdown(int fd, int how);
void *malloc(size_t size);
void free(void *p);
int *__errno_location(void);
int pthread_create(pthread_t *thread, void *attr, void *(*start)(void *), void *arg);
int pthread_detach(pthread_t thread);

#define BUFFER (256 * 1024)
#define LOOPBACK 0x0100007f /* 127.0.0.1, network order on a little-endian machine */
#define MSG_DONTWAIT 0x40
#define MSG_NOSIGNAL 0x4000
#define POLLIN 1
#define POLLOUT 4
#define EAGAIN 11

struct way { int from, to; char *buffer; long start, pending; int ended; };
static int upstream_port;

static unsigned short net16(int port) { return (unsigned short)(((port & 0xff) << 8) | ((port >> 8) & 0xff)); }

/* Moves what it can one way without blocking; -1 once to cannot be written. */
static int step(struct way *w) {
  for (;;) {
    int moved = 0;
    if (!w->ended && w->pending == 0) {
      ssize_t n = recv(w->from, w->buffer, BUFFER, MSG_DONTWAIT);
      if (n > 0) { w->start = 0; w->pending = n; moved = 1; }
      else if (n == 0 || *__errno_location() != EAGAIN) { w->ended = 1; shutdown(w->to, 1); }
    }
    if (w->pending > 0) {
      ssize_t n = send(w->to, w->buffer + w->start, w->pending, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n > 0) { w->start += n; w->pending -= n; moved = 1; }
      else if (*__errno_location() != EAGAIN) return -1;
    }
    if (!moved) return 0;
  }
}

/* One connection on one thread: both ways, poll() between, until the server's way has ended. */
static void *connection(void *arg) {
  int client = (int)(long)arg;
  int server = socket(2, 1, 0);
  struct sockaddr_in to = { 2, net16(upstream_port), LOOPBACK };
  if (connect(server, &to, sizeof to) == 0) {
    struct way up = { client, server, malloc(BUFFER), 0, 0, 0 };
    struct way down = { server, client, malloc(BUFFER), 0, 0, 0 };
    for (;;) {
      if (step(&up) < 0 || step(&down) < 0) break;
      if (down.ended && down.pending == 0) break;
      struct pollfd fds[2] = { { client, 0, 0 }, { server, 0, 0 } };
      if (!up.ended && up.pending == 0) fds[0].events |= POLLIN;
      if (down.pending > 0) fds[0].events |= POLLOUT;
      if (!down.ended && down.pending == 0) fds[1].events |= POLLIN;
      if (up.pending > 0) fds[1].events |= POLLOUT;
      if (poll(fds, 2, -1) < 0) break;
    }
    free(up.buffer);
    free(down.buffer);
  }
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
int bare_relay_start(int port) {
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
void bare_relay_stop(void) {
  shutdown(listener, 2);
}
`;

export interface BareRelay {
  port: number;
  stop(): void;
}

/** Starts the forwarder to 127.0.0.1:`port` in this process (Linux with TinyCC); throws where it cannot. */
export function startBareRelay(port: number): BareRelay {
  const { cc } = require("bun:ffi") as typeof import("bun:ffi");
  const folder = mkdtempSync(join(tmpdir(), "garuda-bench-bare-relay-"));
  try {
    const source = join(folder, "bareRelay.c");
    writeFileSync(source, BARE_RELAY_C);
    const { symbols } = cc({
      source,
      symbols: { bare_relay_start: { args: ["int"], returns: "int" }, bare_relay_stop: { args: [], returns: "void" } },
    });
    const listening = symbols.bare_relay_start(port);
    if (listening <= 0) throw new Error("the bare relay could not listen on 127.0.0.1");
    return { port: listening, stop: () => symbols.bare_relay_stop() };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
