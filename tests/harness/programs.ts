import which from "which";

/** A program on PATH or in Debian's sbin, or null. */
export const findProgram = (name: string): string | null =>
  which.sync(name, { nothrow: true, path: `${process.env.PATH ?? ""}:/usr/sbin` });
