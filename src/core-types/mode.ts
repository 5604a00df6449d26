// The session's mode. Here, not in permission/, because the events, the session file and the
// front ends all carry it and core-types imports nothing else of src/.

/** build: the tools may change the project (as the rules allow); plan: they only read it. */
export type Mode = "build" | "plan";
