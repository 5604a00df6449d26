// The C source of the session network's listener (socketHandover.ts), compiled at run time by
// Bun's built-in TinyCC (bun:ffi cc), as nativeRelay.c.ts is: no headers, so the few prototypes
// and Linux constants are written out (x86-64 and arm64 agree on all but two syscall numbers).
//
// A socket belongs to the network namespace of the process that made it, whoever holds it later.
// Garuda cannot enter the sandbox's namespaces itself (a process with threads may not change its
// user namespace), so listen_inside() makes a child that can: clone(CLONE_FILES | CLONE_VFORK),
// no CLONE_VM. The child has one thread and its own copy of memory, and shares Garuda's table of
// open files; it enters the holder's user namespace (where Garuda's user has every capability,
// being its owner), then its network namespace, makes the listening socket on 127.0.0.1:<port>,
// puts it at descriptor `into_fd` of the shared table (close-on-exec) and exits. It only makes
// system calls between the clone and its exit (no allocation, no lock, nothing of Bun's), with
// every signal blocked, as posix_spawn's child does. Its exit signal is 0, so it is a "clone
// child" that only a __WALL wait reaps: Bun's own reaping of its subprocesses never takes it.
// A failure is told through a pipe (the step and errno), since the child's memory is its own.
export const LISTEN_INSIDE_C = String.raw`
typedef unsigned long size_t;
typedef long ssize_t;
int setns(int fd, int nstype);
int socket(int domain, int type, int protocol);
int setsockopt(int fd, int level, int name, const void *value, unsigned int len);
int bind(int fd, const void *address, unsigned int len);
int listen(int fd, int backlog);
int dup3(int from, int to, int flags);
int open(const char *path, int flags, ...);
int close(int fd);
int pipe2(int fds[2], int flags);
ssize_t write(int fd, const void *buf, size_t n);
ssize_t read(int fd, void *buf, size_t n);
long syscall(long number, ...);
int prctl(int option, ...);
int *__errno_location(void);
int sigfillset(void *set);
int pthread_sigmask(int how, const void *set, void *old);
int waitpid(int pid, int *status, int options);

#if defined(__x86_64__)
#define SYS_CLONE 56
#define SYS_EXIT 60
#elif defined(__aarch64__)
#define SYS_CLONE 220
#define SYS_EXIT 93
#else
#error "the session network's listener is written for x86-64 and arm64 Linux"
#endif
#define CLONE_FILES 0x400
#define CLONE_VFORK 0x4000
#define CLONE_NEWUSER 0x10000000
#define CLONE_NEWNET 0x40000000
#define WAIT_ALL 0x40000000
#define O_RDONLY 0
#define O_NONBLOCK 04000
#define O_CLOEXEC 02000000
#define AF_INET 2
#define SOCK_STREAM 1
#define SOCK_CLOEXEC 02000000
#define SOL_SOCKET 1
#define SO_REUSEADDR 2
#define PR_SET_DUMPABLE 4
#define SIG_SETMASK 2
#define EINTR 4
#define BACKLOG 511

struct sockaddr_in4 { unsigned short family; unsigned short port; unsigned char address[4]; unsigned char zero[8]; };

/** open(path, O_RDONLY | O_CLOEXEC): no process Garuda starts meanwhile inherits it. */
int open_cloexec(const char *path) {
  return open(path, O_RDONLY | O_CLOEXEC);
}

/*
 * In the child: says which step failed, and its errno, then exits. made_fd (or -1): the socket
 * made so far, closed first: the table of files is Garuda's (CLONE_FILES), so the child's exit
 * would not close it, and it would stay open in Garuda (and keep the namespace alive).
 */
static void child_failed(int pipe_w, int step, int made_fd) {
  int said[2];
  said[0] = step;
  said[1] = *__errno_location();
  if (made_fd >= 0) close(made_fd);
  write(pipe_w, said, sizeof said);
  syscall(SYS_EXIT, 1);
}

/*
 * 0 when descriptor into_fd is now the listening socket; otherwise step * 1000 + errno: step 1
 * the pipe, 2 the clone, 3 entering the user namespace, 4 the network namespace, 5 socket(),
 * 6 bind(), 7 listen(), 8 dup3(), 9 the child ended without saying.
 */
int listen_inside(int user_fd, int net_fd, int port, int into_fd) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return 1000 + *__errno_location();
  unsigned long all[16], old[16];
  sigfillset(all);
  pthread_sigmask(SIG_SETMASK, all, old);
  long pid = syscall(SYS_CLONE, (long)(CLONE_FILES | CLONE_VFORK), 0L, 0L, 0L, 0L);
  if (pid == 0) {
    /* the child: nothing but system calls from here to its exit */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    if (setns(user_fd, CLONE_NEWUSER) != 0) child_failed(fds[1], 3, -1);
    if (setns(net_fd, CLONE_NEWNET) != 0) child_failed(fds[1], 4, -1);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) child_failed(fds[1], 5, -1);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in4 where;
    int i;
    for (i = 0; i < 8; i++) where.zero[i] = 0;
    where.family = AF_INET;
    where.port = (unsigned short)(((port & 0xff) << 8) | ((port >> 8) & 0xff));
    where.address[0] = 127;
    where.address[1] = 0;
    where.address[2] = 0;
    where.address[3] = 1;
    if (bind(fd, &where, sizeof where) != 0) child_failed(fds[1], 6, fd);
    if (listen(fd, BACKLOG) != 0) child_failed(fds[1], 7, fd);
    if (dup3(fd, into_fd, O_CLOEXEC) < 0) child_failed(fds[1], 8, fd);
    close(fd);
    syscall(SYS_EXIT, 0);
  }
  int clone_errno = *__errno_location();
  pthread_sigmask(SIG_SETMASK, old, 0);
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return 2000 + clone_errno;
  }
  int status = 0;
  while (waitpid((int)pid, &status, WAIT_ALL) < 0 && *__errno_location() == EINTR) {
  }
  int said[2];
  said[0] = 0;
  said[1] = 0;
  long got = read(fds[0], said, sizeof said);
  close(fds[0]);
  close(fds[1]);
  if (got == (long)sizeof said) return said[0] * 1000 + said[1];
  return status == 0 ? 0 : 9000;
}
`;
