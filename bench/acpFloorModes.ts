// The modes the floors of bench/acp.ts (acpFloor.ts, acpSdkFloor.ts) answer session/new with: the
// same shape as Garuda's answer, so the client reads answers of one size from each.
export const FLOOR_MODES = {
  currentModeId: "build",
  availableModes: [
    { id: "build", name: "Build", description: "Edits ask first; commands run in the sandbox." },
    { id: "plan", name: "Plan", description: "Reads and plans. No edits; commands cannot write the project." },
  ],
};
