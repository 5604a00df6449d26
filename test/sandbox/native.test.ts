// The C library through native.ts (dlopen of libc, no C compiled): descriptors passed over a
// socketpair arrive as new descriptors of the same files, a receive with nothing queued returns at
// once instead of waiting, and the namespace ioctls name the namespaces the session network checks.
import { describe, expect, test } from "bun:test";
import { closeSync, fstatSync, openSync, statSync } from "node:fs";
import { openNative } from "../../src/sandbox/native.ts";

describe.skipIf(process.platform !== "linux")("native.ts", () => {
  const native = openNative();

  test("libc loads", () => {
    expect(native).toBeDefined();
  });

  test("descriptors sent over a socketpair arrive as descriptors of the same files, close-on-exec", () => {
    const c = native as NonNullable<typeof native>;
    const [a, b] = c.socketPair();
    const file = openSync("/proc/self/ns/net", "r");
    try {
      c.sendFds(a, [file]);
      const got = c.receiveFds(b);
      expect(got).toHaveLength(1);
      const fd = got[0] as number;
      expect(fd).not.toBe(file);
      expect(fstatSync(fd).ino).toBe(statSync("/proc/self/ns/net").ino);
      closeSync(fd);
    } finally {
      for (const fd of [a, b, file]) closeSync(fd);
    }
  });

  test("a receive with nothing queued returns at once, without waiting (negative control: one queued arrives)", () => {
    const c = native as NonNullable<typeof native>;
    const [a, b] = c.socketPair();
    try {
      const started = performance.now();
      expect(c.receiveFds(b)).toEqual([]);
      expect(performance.now() - started).toBeLessThan(50);
      c.sendFds(a, [a]);
      const got = c.receiveFds(b);
      expect(got).toHaveLength(1);
      for (const fd of got) closeSync(fd);
    } finally {
      closeSync(a);
      closeSync(b);
    }
  });

  test(
    "a loopback listener's namespace is this process's; the network namespace's " + "owner is this user namespace",
    () => {
      const c = native as NonNullable<typeof native>;
      const listener = c.listenLoopback(0);
      const net = openSync("/proc/self/ns/net", "r");
      try {
        const ns = c.socketNamespace(listener);
        expect(fstatSync(ns).ino).toBe(statSync("/proc/self/ns/net").ino);
        closeSync(ns);
        const owner = c.owningUserNamespace(net);
        expect(fstatSync(owner).ino).toBe(statSync("/proc/self/ns/user").ino);
        closeSync(owner);
      } finally {
        closeSync(listener);
        closeSync(net);
      }
    },
  );

  test("a failed call says which and why", () => {
    const c = native as NonNullable<typeof native>;
    const notSocket = openSync("/dev/null", "r");
    try {
      expect(() => c.socketNamespace(notSocket)).toThrow("ioctl(SIOCGSKNS) failed (ENOTTY)");
    } finally {
      closeSync(notSocket);
    }
  });
});
