/** A setting the server cannot run with; its message is the one line start-up prints. */
export class ConfigError extends Error {}

/**
 * Builds something from the settings, or prints the ConfigError's one line for
 * `docker logs` and stops: a half-configured server must not serve.
 */
export function orExitOnConfigError<T>(build: () => T): T {
  try {
    return build();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}
