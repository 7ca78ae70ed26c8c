import type { FeatureIcon as FeatureIconName } from "~/content";

export const ICON_PATHS: Record<FeatureIconName | "logo" | "check", string> = {
  logo: "M12 3 4 6.5v5.2c0 4.6 3.4 8.6 8 9.3 4.6-.7 8-4.7 8-9.3V6.5L12 3Zm-3.5 9.5 2.5 2.5 4.5-5",
  check: "m5 12.5 4.5 4.5L19 7.5",
  dashboard: "M4 4h7v9H4zM13 4h7v5h-7zM13 11h7v9h-7zM4 15h7v5H4z",
  credit: "M3 7h18v10H3zM3 10.5h18M7 14.5h3",
  portability: "M4 8h13m0 0-3.5-3.5M17 8l-3.5 3.5M20 16H7m0 0 3.5-3.5M7 16l3.5 3.5",
  education: "M3 8.5 12 4l9 4.5-9 4.5-9-4.5Zm4 2v4.5c0 1.4 2.2 2.5 5 2.5s5-1.1 5-2.5v-4.5M21 8.5V14",
  consent: "M9 11V7.5a3 3 0 0 1 6 0V11M6.5 11h11v9h-11zM12 14.5v2",
  shield: "M12 3 4.5 6v5.5c0 4.3 3.2 8.1 7.5 9 4.3-.9 7.5-4.7 7.5-9V6L12 3Zm-3 9 2 2 4-4",
};

/** Line icons drawn inline: no request, no icon font, styled by currentColor. */
export function Icon({ name, className = "h-6 w-6" }: { name: keyof typeof ICON_PATHS; className?: string }) {
  return (
    <svg
      className={className}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.8}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      <path d={ICON_PATHS[name]} />
    </svg>
  );
}
