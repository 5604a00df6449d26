// Consents for project extensions (custom commands, skills, agents, MCP servers): a project file
// runs only after the user said yes to its exact content. A yes is kept for the session, or —
// "Yes, and remember" — pinned in ~/.garuda/trust.json by root, name and SHA-256, so a change
// asks again. Each question goes through the permission engine (target "input", a tool name like
// `command.deploy`), so a deny rule refuses it, it is audited, and the front end shows it as a
// question of its own (no callId). Consents change nothing in the project, so they are decided
// as in build mode whatever the session's mode is.
import type { NamedTrustKind, TrustStore } from "../config/trust.ts";
import type { PermissionEngine } from "../permission/engine.ts";
import type { ApprovalRequest, Approver, Choice } from "../permission/types.ts";

const CONSENT_LABELS: Readonly<Record<Choice, string>> = {
  once: "Yes, for this session",
  session: "Yes, and remember",
  deny: "No",
};

export interface ConsentItem {
  kind: NamedTrustKind;
  /** The pin's name under the root in trust.json (a command's name, a server's name …). */
  name: string;
  /** SHA-256 of what the user approves. */
  hash: string;
  /** The name the engine and rules see, e.g. `command.deploy`, `mcp_server.github`. */
  tool: string;
  title: string;
  preview: string;
  question: string;
  /** No "remember" choice (e.g. a server that would run without the OS sandbox). */
  sessionOnly?: boolean;
}

/** `asked`: the user answered just now (not an earlier pin or yes, nor a rule). */
export type ConsentAnswer = { allowed: true; remembered: boolean; asked: boolean } | { allowed: false; reason: string };

export interface Consents {
  /** Pinned for this root, or approved in this session. */
  approved(kind: NamedTrustKind, name: string, hash: string): boolean;
  /** approved(), else the question. Never throws. */
  ask(item: ConsentItem, signal: AbortSignal): Promise<ConsentAnswer>;
  /** Whether any hash is pinned for this name (an earlier yes to another content). */
  hasPin(kind: NamedTrustKind, name: string): boolean;
  /** Records a yes without asking: pinned when `remember`, else for this session. */
  record(kind: NamedTrustKind, name: string, hash: string, remember: boolean): void;
}

export interface ConsentOptions {
  /** The project root (its real path). */
  root: string;
  trust: TrustStore;
  engine: Pick<PermissionEngine, "authorize">;
  /** Absent in headless runs: every question is then a no. */
  approver?: Approver | undefined;
}

/** The engine's name for a consent: a rule can name it (`command.*`, `mcp_server.github`). */
export function consentTool(prefix: "command" | "skill" | "agent" | "mcp_server", name: string): string {
  return `${prefix}.${name.replace(/:/g, ".")}`;
}

export function createConsents(options: ConsentOptions): Consents {
  const session = new Set<string>();
  const key = (kind: NamedTrustKind, name: string, hash: string) => `${kind}\u0000${name}\u0000${hash}`;

  const approved = (kind: NamedTrustKind, name: string, hash: string) =>
    session.has(key(kind, name, hash)) || options.trust.isTrustedName(kind, options.root, name, hash);

  const record = (kind: NamedTrustKind, name: string, hash: string, remember: boolean) => {
    session.add(key(kind, name, hash));
    if (!remember) return;
    try {
      options.trust.pinName(kind, options.root, name, hash);
    } catch {
      // A broken trust.json is reported at session start; the yes holds for this session.
    }
  };

  // Two parallel calls that need the same yes share one question.
  const asking = new Map<string, Promise<ConsentAnswer>>();
  const ask = (item: ConsentItem, signal: AbortSignal): Promise<ConsentAnswer> => {
    if (approved(item.kind, item.name, item.hash))
      return Promise.resolve({ allowed: true, remembered: false, asked: false });
    const id = key(item.kind, item.name, item.hash);
    const pending = asking.get(id);
    if (pending) return pending;
    const question = askOnce(item, signal).finally(() => asking.delete(id));
    asking.set(id, question);
    return question;
  };

  const askOnce = async (item: ConsentItem, signal: AbortSignal): Promise<ConsentAnswer> => {
    let remember = false;
    let asked = false;
    const approver = options.approver;
    const relabeled: Approver | undefined = approver && {
      async ask(request: ApprovalRequest, askSignal: AbortSignal): Promise<Choice> {
        const { sessionRules: _none, ...rest } = request;
        const choices = item.sessionOnly ? request.choices.filter((choice) => choice !== "session") : request.choices;
        asked = true;
        const choice = await approver.ask(
          { ...rest, choices, labels: { ...CONSENT_LABELS }, ...(choices.includes("session") && { remembers: true }) },
          askSignal,
        );
        // "Remember" is a pin in trust.json, not a session rule: the engine hears "once".
        if (choice === "session") {
          remember = true;
          return "once";
        }
        return choice;
      },
    };
    const decision = await options.engine.authorize(
      {
        tool: item.tool,
        readOnly: false,
        target: { kind: "input" },
        title: item.title,
        preview: item.preview,
        question: item.question,
      },
      { mode: "build", ...(relabeled && { approver: relabeled }), signal },
    );
    if (decision.outcome === "allow") {
      record(item.kind, item.name, item.hash, remember);
      return { allowed: true, remembered: remember, asked };
    }
    if (decision.outcome === "ask") return { allowed: false, reason: "it needs your yes" };
    if (signal.aborted) return { allowed: false, reason: "the question was cancelled" };
    switch (decision.by) {
      case "user":
        return { allowed: false, reason: "you said no" };
      case "unattended":
        return {
          allowed: false,
          reason: "it needs your yes, and no one can answer in this run (run Garuda in this folder once to approve it)",
        };
      case "policy":
      case "rule": {
        const rule = decision.rule;
        return {
          allowed: false,
          reason: `a deny rule forbids it (${rule?.pattern ?? "a rule"}${rule?.file ? ` in ${rule.file}` : ""})`,
        };
      }
      default:
        return { allowed: false, reason: decision.reason.replace(/\.$/, "") };
    }
  };

  const hasPin = (kind: NamedTrustKind, name: string) =>
    options.trust.pinnedName(kind, options.root, name) !== undefined;

  return { approved, ask, record, hasPin };
}
