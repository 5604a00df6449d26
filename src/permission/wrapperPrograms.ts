// The programs that run the rest of their arguments as a command (sudo, env, nice, timeout,
// xargs …), each with its own option syntax: which options take a value, how many positional
// words it takes, which options mean it runs nothing or runs a script. Data only, apart from
// commandNormalize.ts, which strips wrappers by it.

export interface WrapperSpec {
  /** Options that take the next word as their value. */
  valued: ReadonlySet<string>;
  /** Positional words the wrapper itself takes before the command (`timeout 10 cmd`). */
  positionals?: number;
  /** Options after which the wrapper does not run a command (`command -v rm`). */
  noRun?: ReadonlySet<string>;
  /** Options whose value is a shell script the wrapper runs (`flock f -c 'cmd'`). */
  script?: ReadonlySet<string>;
  /** `NAME=value` words before the command set variables for it (env, sudo), whatever NAME is. */
  assigns?: boolean;
  /** Options after which the command's words, joined, are run by a shell (`sudo -s 'a; b'`). */
  viaShell?: ReadonlySet<string>;
}

const set = (...items: string[]): ReadonlySet<string> => new Set(items);

/** Programs that run the rest of their arguments as a command. */
export const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  sudo: {
    valued: set(
      "-u",
      "-g",
      "-h",
      "-p",
      "-C",
      "-D",
      "-r",
      "-t",
      "-U",
      "-T",
      "--user",
      "--group",
      "--host",
      "--prompt",
      "--chdir",
      "--role",
      "--type",
      "--other-user",
      "--close-from",
      "--command-timeout",
    ),
    assigns: true,
    viaShell: set("-s", "--shell", "-i", "--login"),
  },
  doas: { valued: set("-u", "-C") },
  env: { valued: set("-u", "--unset", "-C", "--chdir", "-S", "--split-string", "-P"), assigns: true },
  exec: { valued: set("-a") },
  command: { valued: set(), noRun: set("-v", "-V") },
  builtin: { valued: set() },
  nohup: { valued: set() },
  time: { valued: set("-f", "--format", "-o", "--output") },
  nice: { valued: set("-n", "--adjustment") },
  ionice: { valued: set("-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "--pgid", "-u", "--uid") },
  timeout: { valued: set("-s", "--signal", "-k", "--kill-after"), positionals: 1 },
  stdbuf: { valued: set("-i", "-o", "-e", "--input", "--output", "--error") },
  setsid: { valued: set() },
  unbuffer: { valued: set() },
  busybox: { valued: set() },
  xargs: {
    valued: set(
      "-I",
      "-L",
      "-n",
      "-P",
      "-s",
      "-d",
      "-E",
      "-a",
      "--arg-file",
      "--delimiter",
      "--max-args",
      "--max-procs",
      "--max-chars",
      "--max-lines",
      "--replace",
      "--eof",
      "--process-slot-var",
    ),
  },
  flock: {
    valued: set("-w", "--wait", "--timeout", "-E", "--conflict-exit-code"),
    positionals: 1,
    script: set("-c", "--command"),
  },
  chrt: { valued: set(), positionals: 1 },
  chroot: { valued: set("--userspec", "--groups"), positionals: 1 },
  unshare: {
    valued: set("--map-user", "--map-group", "--setuid", "--setgid", "-S", "-G", "--wd", "-w", "--root", "-R"),
  },
  setpriv: {
    valued: set(
      "--reuid",
      "--regid",
      "--groups",
      "--inh-caps",
      "--ambient-caps",
      "--bounding-set",
      "--securebits",
      "--pdeathsig",
    ),
  },
  strace: {
    valued: set("-e", "-o", "-p", "-s", "-u", "-E", "-a", "-S", "-X", "-P", "-I", "-b", "--output", "--user", "--env"),
  },
  ltrace: { valued: set("-e", "-o", "-p", "-s", "-u", "-a", "-n", "-F", "-l", "--output", "--library") },
  fakeroot: { valued: set("-l", "--lib", "--faked", "-s", "-i") },
  proxychains: { valued: set("-f") },
  proxychains4: { valued: set("-f") },
  torsocks: { valued: set("-u", "--user", "-p", "--pass", "-a", "--address", "-P", "--port") },
  pkexec: { valued: set("--user") },
  caffeinate: { valued: set("-t", "-w") },
  arch: { valued: set() },
  taskset: { valued: set(), positionals: 1, noRun: set("-p", "--pid") },
  nsenter: { valued: set("-t", "--target", "-S", "--setuid", "-G", "--setgid", "-w", "--wd") },
  setarch: { valued: set(), positionals: 1 },
  linux32: { valued: set() },
  linux64: { valued: set() },
  "systemd-run": {
    valued: set(
      "-u",
      "--unit",
      "-p",
      "--property",
      "-E",
      "--setenv",
      "-M",
      "--machine",
      "-H",
      "--host",
      "--description",
      "--slice",
      "--uid",
      "--gid",
      "--nice",
      "--working-directory",
    ),
  },
  catchsegv: { valued: set() },
  valgrind: { valued: set() },
  firejail: { valued: set() },
  toybox: { valued: set() },
  "dbus-run-session": { valued: set("--config-file", "--dbus-daemon") },
};
