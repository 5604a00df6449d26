// The C source of the native relay (nativeRelay.ts), compiled at run time by Bun's built-in
// TinyCC (bun:ffi cc). No headers: TinyCC inside Bun has none of the system's, so the few libc
// prototypes and Linux constants it needs are written out (x86-64 and arm64 Linux agree on all
// of them).
//
// One thread per relayed connection moves bytes between two TCP sockets with non-blocking recv()
// and send() through a 256 KiB buffer per direction, and poll() between them. It was splice(2)
// through a pipe per direction, which copies nothing in user space; yet on a 2-core machine, in
// bench/sandbox.ts runs alternating the two, recv()/send() passed more (figures in the commit
// that made the change), as much as a bare relay with no checks (bench/bareRelay.ts). A buffer
// is sent from its start and filled after its end, and received into from its start once empty.
// The thread works on duplicates of the two descriptors, so whatever Bun does with its own never
// lets the thread touch a reused descriptor number; it frees its buffers, then calls `done(id)` (a
// thread-safe JS callback) as its very last act, and the JS side closes the duplicates.
//
// Per direction, as relay.ts does it: a FIN from one side is passed on as a FIN (shutdown
// SHUT_WR) once everything read before it was written; a side that fails (reset, EPIPE) gets
// nothing more, and what it sent before is still passed on, then the other side is shut too.
// relay_stop(a, b) shuts both sockets down, which wakes the thread and ends it.
//
// Socket a is the client's, b the server's. Once the server cannot be written to any more (it
// reset the connection, often after answering early, say 413, without reading the whole upload),
// the client's upload is read and dropped for up to LINGER_MS instead of left unread (a lingering
// close, as the JS relay goes on reading): closing a socket with bytes unread resets it, and a
// reset client may lose the answer it has not read yet.
//
// A direction asks for POLLIN only while its buffer has room at its end: a client that stops
// reading fills the buffer, and the thread then waits for POLLOUT alone instead of spinning on a
// readable socket it cannot read from (a full core, measured with the pipe before), as the JS
// relay pauses.
export const NATIVE_RELAY_C = String.raw`
typedef unsigned long size_t;
typedef long ssize_t;
typedef unsigned long pthread_t;
struct pollfd { int fd; short events; short revents; };
int poll(struct pollfd *fds, unsigned long nfds, int timeout);
int fcntl(int fd, int cmd, ...);
int close(int fd);
int shutdown(int fd, int how);
int setsockopt(int fd, int level, int name, const void *value, unsigned int len);
void *malloc(size_t size);
void free(void *p);
int *__errno_location(void);
int pthread_create(pthread_t *thread, void *attr, void *(*start)(void *), void *arg);
int pthread_detach(pthread_t thread);
int prctl(int option, ...);
ssize_t recv(int fd, void *buf, size_t n, int flags);
ssize_t send(int fd, const void *buf, size_t n, int flags);
struct timespec { long tv_sec; long tv_nsec; };
int clock_gettime(int clock, struct timespec *ts);

#define F_DUPFD_CLOEXEC 1030
#define PR_SET_NAME 15
#define POLLIN 1
#define POLLOUT 4
#define POLLERR 8
#define POLLHUP 16
#define EINTR 4
#define EAGAIN 11
/* Every recv() and send() is non-blocking whatever the socket's own flags, and a send() to a
   reset peer says EPIPE instead of raising SIGPIPE. */
#define MSG_DONTWAIT 0x40
#define MSG_NOSIGNAL 0x4000
#define SHUT_WR 1
#define SHUT_RDWR 2
#define SOL_SOCKET 1
#define SO_LINGER 13
#define CLOCK_MONOTONIC 1
/* How long a client's upload is read and dropped once its server cannot be written to. */
#define LINGER_MS 2000
/* Each direction's buffer: 256 KiB, the size the pipes had (measured as fast as 1 MiB, NOTES-net2.md). */
#define BUFFER_BYTES (256 * 1024)

struct direction {
  int in, out;
  char *buffer;
  long start;     /* where the bytes not yet written begin in buffer */
  long pending;   /* bytes in the buffer not yet written */
  long capacity;  /* the buffer's size */
  int eof;        /* in sent its FIN */
  int finished;   /* out was shut (or failed): nothing more goes this way */
  int errored;    /* in reported an error (a reset): what it received before is still read, then it ends */
  int discard;    /* out cannot be written: what in sends is read and dropped (the client's, lingering) */
};

struct relay {
  int id;
  int a, b;
  long linger_until; /* monotonic ms, once d[0] is dropping the client's upload */
  struct direction d[2];
  void (*done)(int id);
};

static int open_buffer(struct direction *d) {
  d->buffer = (char *)malloc(BUFFER_BYTES);
  if (!d->buffer) return -1;
  d->capacity = BUFFER_BYTES;
  d->start = 0;
  return 0;
}

/* Moves what it can one way without blocking: 0, or -1 when its out side cannot be written any more. */
static int step(struct direction *d) {
  if (d->finished) return 0;
  if (d->discard) {
    char dropped[16384];
    for (;;) {
      ssize_t n = recv(d->in, dropped, sizeof dropped, MSG_DONTWAIT);
      if (n > 0 || (n < 0 && *__errno_location() == EINTR)) continue;
      if (n == 0 || *__errno_location() != EAGAIN) d->finished = 1; /* the client ended */
      return 0;
    }
  }
  for (;;) {
    int moved = 0;
    if (!d->eof && d->start + d->pending < d->capacity) {
      ssize_t n = recv(d->in, d->buffer + d->start + d->pending, d->capacity - d->start - d->pending, MSG_DONTWAIT);
      if (n > 0) { d->pending += n; moved = 1; }
      else if (n == 0) d->eof = 1;
      else if (*__errno_location() == EAGAIN) {
        if (d->errored) d->eof = 1; /* a failed socket with nothing left to read */
      }
      else if (*__errno_location() != EINTR) d->eof = 1; /* a reset reads as the end */
    }
    if (d->pending > 0) {
      ssize_t n = send(d->out, d->buffer + d->start, d->pending, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n > 0) { d->pending -= n; d->start = d->pending > 0 ? d->start + n : 0; moved = 1; }
      else if (n < 0 && *__errno_location() != EAGAIN && *__errno_location() != EINTR) { d->finished = 1; d->pending = 0; return -1; }
    }
    if (d->eof && d->pending == 0) {
      shutdown(d->out, SHUT_WR);
      d->finished = 1;
      return 0;
    }
    if (!moved) return 0;
  }
}

static long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The server (b) cannot be written to any more: nothing more goes to it, and the client's upload
   is dropped for a while rather than left unread (the lingering close above). */
static void server_gone(struct relay *r) {
  struct direction *up = &r->d[0];
  up->pending = 0;
  up->start = 0;
  if (up->eof) {
    up->finished = 1;
    return;
  }
  if (up->discard) return;
  up->discard = 1;
  up->finished = 0;
  r->linger_until = now_ms() + LINGER_MS;
}

static void *run(void *arg) {
  struct relay *r = (struct relay *)arg;
  /* Named for whoever looks (top -H, /proc/<pid>/task/<tid>/comm): it is Garuda's, and what it is. */
  prctl(PR_SET_NAME, "garuda-relay", 0, 0, 0);
  for (;;) {
    /* A side that cannot be written any more gets nothing more; what it sent is still read. */
    for (int i = 0; i < 2; i++) {
      if (step(&r->d[i]) < 0) {
        r->d[1 - i].errored = 1;
        if (i == 0) server_gone(r);
      }
    }
    int lingering = r->d[0].discard && !r->d[0].finished;
    if (lingering && now_ms() >= r->linger_until) {
      r->d[0].finished = 1;
      lingering = 0;
    }
    if (r->d[0].finished && r->d[1].finished) break;
    struct pollfd fds[2];
    short events[2] = { 0, 0 };
    /* d[0]: a -> b, d[1]: b -> a; fds[0] is a, fds[1] is b */
    for (int i = 0; i < 2; i++) {
      struct direction *d = &r->d[i];
      if (d->finished) continue;
      if (d->discard) {
        events[i] |= POLLIN;
        continue;
      }
      if (!d->eof && d->start + d->pending < d->capacity) events[i] |= POLLIN;
      if (d->pending > 0) events[1 - i] |= POLLOUT;
    }
    /* A socket nothing is wanted of is left out: poll would report its hang-up again and again.
       One that may still be written to (d[1 - k] goes into k) stays in with no events, so that
       its hang-up is seen: a client that closed an idle tunnel, to a server that ignores the FIN. */
    for (int k = 0; k < 2; k++) {
      int watched = events[k] || (!r->d[1 - k].finished && !r->d[1 - k].discard);
      fds[k].fd = watched ? (k == 0 ? r->a : r->b) : -1; fds[k].events = events[k]; fds[k].revents = 0;
    }
    long wait = lingering ? r->linger_until - now_ms() : -1;
    if (lingering && wait < 0) wait = 0;
    if (poll(fds, 2, (int)wait) < 0 && *__errno_location() != EINTR) break;
    for (int k = 0; k < 2; k++) {
      if (fds[k].revents & POLLERR) {
        /* k failed (a reset): nothing more can go to it, but what it received before is still
           read and passed on, as the relay does for a FIN (a server that answered and then reset
           a connection whose upload it did not read: its answer must reach the client). */
        r->d[k].errored = 1;
        if (k == 1) server_gone(r);
        else {
          r->d[1].finished = 1;
          r->d[1].pending = 0;
        }
      }
      if (fds[k].revents & POLLHUP) {
        /* Both of k's ways are shut: we shut only the way into k once it is finished, so the peer
           closed it whole (a Unix socket's peer closed, or shut both ways) or it died (TCP_CLOSE).
           Nothing more can go to k; what k sent before is still read to its end. */
        if (k == 1) server_gone(r);
        else {
          r->d[1].finished = 1;
          r->d[1].pending = 0;
        }
      }
    }
  }
  shutdown(r->a, SHUT_RDWR);
  shutdown(r->b, SHUT_RDWR);
  free(r->d[0].buffer);
  free(r->d[1].buffer);
  /* The duplicates stay open: the JS side closes them on done, so a relay_stop() before then
     never reaches a reused descriptor number. */
  void (*done)(int) = r->done;
  int id = r->id;
  free(r);
  done(id);
  return 0;
}

/* Starts relaying between sockets a and b (duplicated here, the duplicates written to owned[0..1],
   closed by the caller after done): 0, or -1 when nothing was started. */
int relay_start(int id, int a, int b, void (*done)(int id), int *owned) {
  struct relay *r = (struct relay *)malloc(sizeof(struct relay));
  if (!r) return -1;
  r->id = id;
  r->done = done;
  r->a = fcntl(a, F_DUPFD_CLOEXEC, 0);
  r->b = fcntl(b, F_DUPFD_CLOEXEC, 0);
  r->d[0].buffer = r->d[1].buffer = 0;
  if (r->a < 0 || r->b < 0 || open_buffer(&r->d[0]) != 0 || open_buffer(&r->d[1]) != 0) goto fail;
  r->d[0].in = r->a; r->d[0].out = r->b;
  r->d[1].in = r->b; r->d[1].out = r->a;
  for (int i = 0; i < 2; i++) { r->d[i].pending = 0; r->d[i].eof = 0; r->d[i].finished = 0; r->d[i].start = 0; r->d[i].errored = 0; r->d[i].discard = 0; }
  r->linger_until = 0;
  owned[0] = r->a;
  owned[1] = r->b;
  pthread_t thread;
  if (pthread_create(&thread, 0, run, r) != 0) goto fail;
  pthread_detach(thread);
  return 0;
fail:
  if (r->a >= 0) close(r->a);
  if (r->b >= 0) close(r->b);
  free(r->d[0].buffer);
  free(r->d[1].buffer);
  free(r);
  return -1;
}

/* Ends a relay from outside (its owned duplicates): both sockets shut, so the thread wakes,
   finishes and calls done. */
void relay_stop(int a, int b) {
  shutdown(a, SHUT_RDWR);
  shutdown(b, SHUT_RDWR);
}

struct linger_option { int on; int seconds; };

/* Closes a finished relay's duplicates (after done), the last descriptors of both connections.
   Bun's terminate() at the hand-over set SO_LINGER 0 on them, which would make this close a
   reset that drops what the kernel has not sent yet (the end of an answer to a client that reads
   slower than its server sends): cleared, the close is an ordinary one. */
void relay_close(int a, int b) {
  struct linger_option off;
  off.on = 0;
  off.seconds = 0;
  setsockopt(a, SOL_SOCKET, SO_LINGER, &off, sizeof off);
  setsockopt(b, SOL_SOCKET, SO_LINGER, &off, sizeof off);
  close(a);
  close(b);
}
`;
