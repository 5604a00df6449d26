// The tool calls the terminal has shown: the shared tracker of src/display/callTracker.ts.
import { CallTracker, type TrackedCall } from "../../display/callTracker.ts";

export type ShownCall = TrackedCall;

export class OpenCalls extends CallTracker<ShownCall> {}
