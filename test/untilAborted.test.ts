import { describe, expect, test } from "bun:test";
import { untilAborted } from "../src/untilAborted.ts";

describe("untilAborted", () => {
  test("settles like the work when it ends first, and leaves no listener on the signal", async () => {
    const controller = new AbortController();
    // Counts the listeners added and removed (Bun's EventTarget has no public count).
    let held = 0;
    const add = controller.signal.addEventListener.bind(controller.signal);
    controller.signal.addEventListener = ((...args: Parameters<typeof add>) => {
      held++;
      add(...args);
    }) as typeof add;
    const remove = controller.signal.removeEventListener.bind(controller.signal);
    controller.signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      held--;
      remove(...args);
    }) as typeof remove;
    expect(await untilAborted(Promise.resolve("done"), controller.signal, () => "aborted")).toBe("done");
    await expect(untilAborted(Promise.reject(new Error("failed")), controller.signal, () => "aborted")).rejects.toThrow(
      "failed",
    );
    expect(held).toBe(0);
  });

  test("settles with whenAborted the moment the signal aborts; a later rejection of the work is handled", async () => {
    const controller = new AbortController();
    let fail: (error: Error) => void = () => {};
    const work = new Promise<string>((_, reject) => {
      fail = reject;
    });
    const raced = untilAborted(work, controller.signal, () => "aborted");
    controller.abort();
    expect(await raced).toBe("aborted");
    fail(new Error("late"));
    await Bun.sleep(1);
  });

  test("a throwing whenAborted rejects, also when the signal had already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const never = new Promise<string>(() => {});
    await expect(
      untilAborted(never, controller.signal, () => {
        throw new Error("stopped");
      }),
    ).rejects.toThrow("stopped");
    const live = new AbortController();
    const raced = untilAborted(never, live.signal, () => {
      throw new Error("stopped later");
    });
    live.abort();
    await expect(raced).rejects.toThrow("stopped later");
  });
});
