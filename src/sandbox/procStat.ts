// /proc/<pid>/stat, read and parsed in one place (Linux). Its second field, the command name in
// parentheses, may hold spaces and parentheses itself, so the fields are counted from the last ")".
import { readFileSync } from "node:fs";

/** What Garuda reads of a process's stat line. */
export interface ProcStat {
  /** R, S, D, Z (exited, not yet reaped), T … */
  state: string;
  ppid: number;
  pgrp: number;
  session: number;
  /** The controlling terminal's device number ("0": none). */
  ttyNr: string;
  /** The terminal's foreground process group ("-1": none). */
  tpgid: string;
  /** Start time in clock ticks since boot: with the pid, names one process (a pid can be reused). */
  start: string;
}

/** The fields after the command name: state, ppid, pgrp, session, tty_nr, tpgid, … (starttime is the 20th). */
export function statFields(line: string): string[] {
  return line.slice(line.lastIndexOf(")") + 2).split(" ");
}

export function parseProcStat(line: string): ProcStat {
  const fields = statFields(line);
  return {
    state: fields[0] ?? "",
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    session: Number(fields[3]),
    ttyNr: fields[4] ?? "",
    tpgid: fields[5] ?? "",
    start: fields[19] ?? "",
  };
}

/** The stat of process `pid`, or undefined when there is none (or no /proc). */
export function readProcStat(pid: number | "self"): ProcStat | undefined {
  let line: string;
  try {
    line = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  return parseProcStat(line);
}
