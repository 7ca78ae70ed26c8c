// Lint rules for the app, tests and scripts: typescript-eslint, React, hooks and accessibility, and the app's
// floors (docs/architecture.md); formatting is Prettier's alone (eslint-config-prettier turns off the rules it owns).
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import importX from "eslint-plugin-import-x";
import jsxA11y from "eslint-plugin-jsx-a11y";
import react from "eslint-plugin-react";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  // `*.timestamp-*.mjs`: vitest's config, bundled beside vitest.config.ts while a lane starts and deleted at once.
  {
    ignores: [
      "build/",
      "public/build/",
      "reports/",
      "test-results/",
      "playwright-report/",
      ".cache/",
      "data/",
      "*.timestamp-*.mjs",
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ["app/**/*.tsx"],
    ...react.configs.flat.recommended,
    ...react.configs.flat["jsx-runtime"],
    settings: { react: { version: "detect" } },
  },
  { files: ["app/**/*.{ts,tsx}"], ...reactHooks.configs.flat.recommended },
  { files: ["app/**/*.tsx"], ...jsxA11y.flatConfigs.recommended },
  // Playwright's fixtures take their dependencies as `({}, use)`.
  { files: ["tests/e2e/**/*.ts"], rules: { "no-empty-pattern": "off" } },
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["app/**/*.{ts,tsx}"],
    plugins: { "import-x": importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      "import-x/resolver-next": [createTypeScriptImportResolver()],
    },
    rules: { "import-x/no-cycle": "error", "import-x/no-restricted-paths": ["error", { zones: floorZones() }] },
  },
  prettier,
);

/**
 * The app's floors, top to bottom: every arrow points down (docs/architecture.md). A module may import from its own
 * folder and the floors below, never from a floor above nor from a neighbour on its own floor.
 */
function floorZones() {
  const floors = [
    ["entry.server.tsx", "entry.client.tsx", "root.tsx", "services.server.ts", "routes"],
    ["components"],
    ["signup"],
    ["delivery", "insight", "page", "state"],
    ["server"],
    ["content.ts"],
  ].map((rooms) => rooms.map((room) => `./app/${room}`));
  // The top floor (the entries, the composition root, the routes) is imported by nothing but itself.
  return floors.slice(1).flatMap((rooms, index) =>
    rooms.map((target) => ({
      target,
      from: [...floors.slice(0, index + 1).flat(), ...rooms.filter((room) => room !== target)],
      message: "Dependencies point down the app's floors (docs/architecture.md).",
    })),
  );
}
