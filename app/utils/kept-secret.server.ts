import { randomBytes } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

const MIN_SECRET_LENGTH = 32;

/**
 * The signing secret kept in a file readable only by the server's user, made
 * once on first start: pages rendered before a restart or deploy still sign
 * up after it. Two processes starting together agree on one secret: each
 * writes its own candidate and links it into place, and the loser reads the
 * winner's (link fails when the name exists; rename would overwrite it).
 */
export function keptSecret(path: string): string {
  try {
    return readSecret(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  mkdirSync(dirname(path), { recursive: true });
  const candidate = `${path}.${process.pid}.${randomBytes(6).toString("hex")}`;
  writeFileSync(candidate, randomBytes(32).toString("base64url"), { mode: 0o600, flag: "wx" });
  try {
    linkSync(candidate, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    unlinkSync(candidate);
  }
  return readSecret(path);
}

function readSecret(path: string): string {
  const secret = readFileSync(path, "utf8").trim();
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new Error(`holds fewer than ${MIN_SECRET_LENGTH} characters; delete it to make a new one`);
  }
  return secret;
}
