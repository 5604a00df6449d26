// A running turn takes input (Runtime.steer, the TurnInbox and the loop), and the PromptQueue the
// front ends put prompts in: through a whole Runtime with a scripted model. The compiled binary
// over ACP is test/acp/steering.test.ts; the terminal, test/cli/chatSteering.test.ts.
import { describe, expect, test } from "bun:test";
import { fake } from "../../src/model/fake.ts";
import type { ModelRequest } from "../../src/model/types.ts";
import { MAX_QUEUED_PROMPTS, PromptQueue, QueueFullError } from "../../src/runtime/promptQueue.ts";
import { MAX_WAITING_MESSAGES } from "../../src/runtime/turnInbox.ts";
import { readSession } from "../../src/store/sessionFile.ts";
import { replayTurns } from "../../src/store/sessionHistory.ts";
import { ofType, testRuntime, turn } from "../support/runtimeHelpers.ts";

const lastUserBlocks = (request: ModelRequest | undefined) => {
  const last = request?.messages.at(-1);
  expect(last?.role).toBe("user");
  return last?.content ?? [];
};

describe("Runtime.steer", () => {
  test("with no turn running it is idle, and nothing is kept", async () => {
    await using t = testRuntime({ turns: [fake.text("Hi.")] });
    expect(t.runtime.steer("hello")).toEqual({ idle: true });
    await turn(t.runtime, "first");
    expect(JSON.stringify(t.model.requests)).not.toContain("hello");
  });

  test(
    "mid-turn: the model reads it after the running calls' results, recorded there " +
      "and replayed as an event of the turn",
    async () => {
      await using t = testRuntime({ files: { "a.txt": "alpha" } });
      const put: unknown[] = [];
      t.model.push(() => {
        // The user types while the model answers: the call still runs, and its result comes first.
        put.push(t.runtime.steer("Also check b.", [{ type: "text", text: "Also check b." }]));
        return fake.toolCall("read", { path: "a.txt" }, { id: "toolu_a" });
      }, fake.text("Checked both."));
      const { stop, events } = await turn(t.runtime, "Read a.");
      expect(stop).toBe("done");
      expect(put).toEqual([{ id: 1 }]);
      const blocks = lastUserBlocks(t.model.requests[1]);
      expect(blocks.map((block) => block.type)).toEqual(["tool_result", "text"]);
      expect(blocks[1]).toEqual({ type: "text", text: "Also check b." });
      const kinds = events.map((event) => event.type);
      expect(kinds.indexOf("steering")).toBeGreaterThan(kinds.indexOf("tool_result"));
      // A user message of its own: its id is recorded with it, and the replay gives it again.
      const messageId = expect.stringMatching(/^[0-9a-f-]{36}$/);
      expect(ofType(events, "steering")).toEqual([
        { type: "steering", id: 1, text: "Also check b.", shown: [{ type: "text", text: "Also check b." }], messageId },
      ]);

      // The session file: one turn, the message in it after the result.
      const file = t.runtime.session?.file as string;
      const turns = replayTurns(readSession(file).records);
      expect(turns.map((replayed) => replayed.prompt)).toEqual(["Read a."]);
      const replayed = turns[0]?.events.map((event) => event.type) ?? [];
      expect(replayed.indexOf("steering")).toBeGreaterThan(replayed.indexOf("tool_result"));
      expect(ofType(turns[0]?.events ?? [], "steering")[0]?.messageId).toBe(
        ofType(events, "steering")[0]?.messageId as string,
      );
    },
  );

  test("sent while the model writes its last answer: the turn goes on with it", async () => {
    await using t = testRuntime();
    t.model.push(() => {
      t.runtime.steer("One more thing.");
      return fake.text("First answer.");
    }, fake.text("Second answer."));
    const { stop } = await turn(t.runtime, "Go.");
    expect(stop).toBe("done");
    expect(t.model.requests).toHaveLength(2);
    expect(lastUserBlocks(t.model.requests[1])).toEqual([{ type: "text", text: "One more thing." }]);
  });

  test("refused when empty, too large for the model, or when too many wait", async () => {
    await using t = testRuntime({ info: { contextWindow: 1_000 } });
    const answers: unknown[] = [];
    t.model.push(() => {
      answers.push(t.runtime.steer("   "));
      answers.push(t.runtime.steer("x".repeat(5_000)));
      for (let i = 0; i < MAX_WAITING_MESSAGES; i++) t.runtime.steer(`m${i}`);
      answers.push(t.runtime.steer("one too many"));
      return fake.text("ok");
    }, fake.text("read them"));
    await turn(t.runtime, "Go.");
    expect(answers[0]).toEqual({ refused: "The message was empty, so nothing was sent to the model." });
    expect(String((answers[1] as { refused: string }).refused)).toStartWith("The message is 5,000 characters");
    expect(String((answers[2] as { refused: string }).refused)).toContain(
      `${MAX_WAITING_MESSAGES} messages already wait`,
    );
    const sent = JSON.stringify(t.model.requests[1]?.messages);
    expect(sent).not.toContain("xxxxx");
    expect(sent).not.toContain("one too many");
    expect(sent).toContain("m15");
  });

  test("the messages waiting for one step share the prompt bound", async () => {
    await using t = testRuntime({ info: { contextWindow: 1_000 } });
    const answers: unknown[] = [];
    t.model.push(() => {
      answers.push(t.runtime.steer("a".repeat(1_500)));
      answers.push(t.runtime.steer("b".repeat(1_000)));
      return fake.text("ok");
    }, fake.text("read it"));
    await turn(t.runtime, "Go.");
    expect(answers[0]).toEqual({ id: 1 });
    expect(String((answers[1] as { refused: string }).refused)).toStartWith(
      "With the 1,500 characters already waiting for the model's next step, this message would make 2,500",
    );
    expect(JSON.stringify(t.model.requests[1]?.messages)).not.toContain("bbbbb");
  });

  test("a stop before the next step: the message is not given to the model, and a line quotes it", async () => {
    await using t = testRuntime();
    const stop = new AbortController();
    t.model.push(() => {
      t.runtime.steer("Too late for this.");
      stop.abort();
      return [fake.wait(Number.POSITIVE_INFINITY)];
    });
    const { stop: reason, events } = await turn(t.runtime, "Go.", stop.signal);
    expect(reason).toBe("cancelled");
    expect(ofType(events, "notice").map((notice) => notice.text)).toContain(
      "Your message was not given to the model (the turn was stopped): “Too late for " +
        "this.”. Send it again as a prompt.",
    );
    expect(t.runtime.steer("after")).toEqual({ idle: true });
  });
});

describe("PromptQueue", () => {
  test("each waits for the one before, in order; a full queue refuses one more", async () => {
    const queue = new PromptQueue();
    expect(await queue.enter()).toBe(true);
    const order: number[] = [];
    const waiting = Array.from({ length: MAX_QUEUED_PROMPTS }, (_, i) =>
      queue.enter().then((run) => {
        order.push(i);
        return run;
      }),
    );
    expect(queue.full).toBe(true);
    await expect(queue.enter()).rejects.toBeInstanceOf(QueueFullError);
    for (let i = 0; i < MAX_QUEUED_PROMPTS; i++) {
      queue.leave();
      await waiting[i];
    }
    expect(order).toEqual([...Array(MAX_QUEUED_PROMPTS).keys()]);
    queue.leave();
    expect(queue.running).toBe(false);
  });

  test("drop answers every waiting prompt false; an aborted request leaves the queue", async () => {
    const queue = new PromptQueue();
    await queue.enter();
    const gone = new AbortController();
    const first = queue.enter(gone.signal);
    const second = queue.enter();
    gone.abort();
    expect(await first).toBe(false);
    expect(queue.waiting).toBe(1);
    expect(queue.drop()).toBe(1);
    expect(await second).toBe(false);
    queue.leave();
    expect(await queue.enter()).toBe(true);
  });
});
