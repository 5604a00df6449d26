// checkAnswer: an answer a front end received is held against the question it answers. Only
// values offered, at most one unless several may be picked, no repeats, text only where free text
// was allowed and within MAX_ANSWER_CHARS, and something answered; anything else is a decline.
import { describe, expect, test } from "bun:test";
import { checkAnswer, MAX_ANSWER_CHARS, type UserAnswer, type UserQuestion } from "../../src/core-types/question.ts";

const question: UserQuestion = {
  kind: "ask_user",
  text: "Which?",
  choices: [
    { value: "1", label: "A" },
    { value: "2", label: "B" },
    { value: "3", label: "C" },
  ],
  multiple: false,
  freeText: false,
};
const declined: UserAnswer = { outcome: "declined" };

describe("checkAnswer", () => {
  test("an offered value is the answer; the picks come back in the question's order", () => {
    expect(checkAnswer(question, ["2"], undefined)).toEqual({ outcome: "answered", values: ["2"] });
    expect(checkAnswer({ ...question, multiple: true }, ["3", "1"], null)).toEqual({
      outcome: "answered",
      values: ["1", "3"],
    });
    expect(checkAnswer({ ...question, freeText: true }, [], "in my words")).toEqual({
      outcome: "answered",
      values: [],
      text: "in my words",
    });
  });

  test("anything else is a decline", () => {
    expect(checkAnswer(question, ["4"], undefined)).toEqual(declined);
    expect(checkAnswer(question, ["A"], undefined)).toEqual(declined);
    expect(checkAnswer(question, [2], undefined)).toEqual(declined);
    expect(checkAnswer(question, "2", undefined)).toEqual(declined);
    expect(checkAnswer(question, ["1", "2"], undefined)).toEqual(declined);
    expect(checkAnswer({ ...question, multiple: true }, ["1", "1"], undefined)).toEqual(declined);
    expect(checkAnswer(question, ["1"], "words where none were asked for")).toEqual(declined);
    expect(checkAnswer({ ...question, freeText: true }, [], { text: "x" })).toEqual(declined);
    expect(checkAnswer({ ...question, freeText: true }, [], "x".repeat(MAX_ANSWER_CHARS + 1))).toEqual(declined);
    expect(checkAnswer({ ...question, freeText: true }, [], "   ")).toEqual(declined);
    expect(checkAnswer(question, [], undefined)).toEqual(declined);
    expect(checkAnswer(question, ["__proto__"], undefined)).toEqual(declined);
  });
});
