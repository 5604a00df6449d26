import { describe, expect, test } from "bun:test";
import { editorStopNote } from "../../src/acp/stopNotes.ts";
import { stopFact, stopNote } from "../../src/display/stopNotes.ts";

describe("what every front end says when a turn stops short", () => {
  test("a conversation gets the fact and what to do next; garuda run the fact alone", () => {
    expect(stopNote("max_steps")).toBe("The turn reached its step limit. Say “go on” to continue.");
    expect(stopNote("refusal")).toBe("The model refused to answer.");
    expect(stopFact("max_steps")).toBe("the turn reached its step limit");
    expect(stopNote("done")).toBeUndefined();
    expect(stopNote("cancelled")).toBeUndefined();
  });

  test("the editor gets a note only where ACP's own stopReason says too little", () => {
    for (const reason of ["max_steps", "token_budget", "repeated_calls"] as const)
      expect(editorStopNote(reason)).toBe(stopNote(reason));
    // max_tokens and refusal are ACP stop reasons the editor shows itself.
    expect(editorStopNote("max_tokens")).toBeUndefined();
    expect(editorStopNote("refusal")).toBeUndefined();
  });
});
