import type { Config } from "tailwindcss";

/** Also read by app/components/product-preview.tsx, which draws the app in these colours outside the page too. */
export const theme = {
  // Two weights: every weight, like every size, is one more font the browser sets up before the first paint.
  fontWeight: { normal: "400", bold: "700" },
  extend: {
    colors: {
      // Deep teal for trust, warm amber for the call to action; both pass AA on white/ink.
      brand: {
        50: "#ecfdf8",
        100: "#d1faed",
        200: "#a7f3da",
        500: "#10a37f",
        600: "#0a8467",
        700: "#0b6a55",
        800: "#0d5446",
        900: "#0c453b",
        950: "#04271f",
      },
      accent: { 300: "#fcd34d", 400: "#fbbf24", 500: "#f59e0b" },
      ink: { 600: "#475569", 700: "#334155", 900: "#0f172a" },
    },
    fontFamily: {
      sans: ["system-ui", "-apple-system", "Segoe UI", "Roboto", "Helvetica Neue", "Arial", "sans-serif"],
    },
  },
};

export default {
  content: ["./app/**/*.{ts,tsx}"],
  theme,
  plugins: [],
  // Tailwind's ~50 shadow, ring and transform variables go only on the elements whose classes read them, not on every
  // element and pseudo-element, which the browser's first style pass would otherwise compute for the whole page.
  experimental: { optimizeUniversalDefaults: true },
} satisfies Config;
