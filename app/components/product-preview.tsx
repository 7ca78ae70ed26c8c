import { content, productPreviewContent as preview } from "~/content";
import { theme } from "../../tailwind.config";
import { ICON_PATHS } from "./icons";

/** The page's palette, read where the theme defines it: the drawing is also rendered outside the page. */
const { brand, accent, ink } = theme.extend.colors;
/** Tailwind's slate-50, white and slate-200, as the page's cards use them. */
const SCREEN = { background: "#f8fafc", card: "#ffffff", line: "#e2e8f0" } as const;

/** One colour per plan, the same in the allocation bar and beside the plan. */
const PLAN_COLORS = [brand[500], accent[400], brand[800]] as const;

const PREVIEW_WIDTH = 320;
const PREVIEW_HEIGHT = 640;

/**
 * On a phone the hero draws the phone 256 px wide (`w-64`), at 0.8 of its own units. Its text is sized to land there
 * on the page's own type sizes, text-xs, text-base and text-xl, in the page's two weights, so the drawing adds one
 * size-weight pair (12 px regular) to the fonts the browser sets up in the first layout instead of thirteen of its own
 * (measured: the drawing on sizes of its own made that layout about 40 % slower at 4× CPU slowdown).
 */
const ON_PHONE_SCALE = 256 / PREVIEW_WIDTH;
const TEXT = { small: 12 / ON_PHONE_SCALE, medium: 16 / ON_PHONE_SCALE, large: 20 / ON_PHONE_SCALE } as const;
const BOLD = 700;

/**
 * A phone showing the app the page announces: the consolidated pension dashboard (total and three plans in R$)
 * connected through Open Insurance, in the page's palette and pt-BR. Decorative: the text beside it says the same, so
 * it is hidden from assistive technology. Text takes the font of where it is drawn (the page's system font stack).
 */
export function ProductPreview() {
  const planTop = (index: number) => 334 + index * 76;
  const shares = allocation(preview.plans.map((plan) => plan.balance));
  return (
    <svg
      xmlns="http://www.w3.org/2000/svg"
      viewBox={`0 0 ${PREVIEW_WIDTH} ${PREVIEW_HEIGHT}`}
      width={PREVIEW_WIDTH}
      height={PREVIEW_HEIGHT}
      // Sized by its container, wherever it is drawn (the page, the share image).
      style={{ display: "block", width: "100%", height: "auto" }}
      aria-hidden="true"
      focusable="false"
    >
      <rect width={PREVIEW_WIDTH} height={PREVIEW_HEIGHT} rx="46" fill={brand[950]} />
      <rect x="12" y="12" width="296" height="616" rx="36" fill={SCREEN.background} />
      <rect x="122" y="24" width="76" height="22" rx="11" fill={brand[950]} />
      <text x="38" y="41" fontSize={TEXT.small} fontWeight={BOLD} fill={ink[900]}>
        {preview.clock}
      </text>
      <rect x="258" y="31" width="22" height="11" rx="3" fill="none" stroke={ink[900]} strokeWidth="1.4" />
      <rect x="260.5" y="33.5" width="14" height="6" rx="1.5" fill={ink[900]} />

      <g transform="translate(26 66)" fill="none" stroke={brand[700]} strokeWidth="2" strokeLinejoin="round">
        <path d={ICON_PATHS.logo} strokeLinecap="round" />
      </g>
      <text x="56" y="85" fontSize={TEXT.medium} fontWeight={BOLD} fill={ink[900]}>
        {content.site.name}
      </text>
      <circle cx="276" cy="78" r="15" fill={brand[100]} />
      <text x="276" y="83" fontSize={TEXT.small} fontWeight={BOLD} fill={brand[800]} textAnchor="middle">
        {preview.avatar}
      </text>
      <text x="28" y="122" fontSize={TEXT.small} fill={ink[600]}>
        {preview.greeting}
      </text>

      <rect x="24" y="136" width="272" height="122" rx="20" fill={brand[900]} />
      <text x="44" y="166" fontSize={TEXT.small} fill={brand[100]}>
        {preview.totalLabel}
      </text>
      <text x="44" y="200" fontSize={TEXT.large} fontWeight={BOLD} fill={SCREEN.card}>
        {preview.total}
      </text>
      <text x="44" y="224" fontSize={TEXT.small} fontWeight={BOLD} fill={accent[300]}>
        {preview.totalChange}
      </text>
      {shares.map(({ start, width }, index) => (
        <rect key={index} x={44 + start * 232} y="238" width={width * 232} height="6" fill={PLAN_COLORS[index]} />
      ))}

      <rect x="24" y="272" width="272" height="32" rx="16" fill={brand[50]} stroke={brand[200]} />
      <g
        transform="translate(36 278) scale(0.83)"
        fill="none"
        stroke={brand[700]}
        strokeWidth="2.2"
        strokeLinecap="round"
        strokeLinejoin="round"
      >
        <path d={ICON_PATHS.shield} />
      </g>
      <text x="62" y="293" fontSize={TEXT.small} fill={brand[800]}>
        {preview.openInsurance}
      </text>

      <text x="28" y="326" fontSize={TEXT.medium} fontWeight={BOLD} fill={ink[900]}>
        {preview.plansTitle}
      </text>
      <text x="292" y="326" fontSize={TEXT.small} fill={ink[600]} textAnchor="end">
        {preview.plansCount}
      </text>
      {preview.plans.map((plan, index) => (
        <g key={plan.name}>
          <rect x="24" y={planTop(index)} width="272" height="66" rx="16" fill={SCREEN.card} stroke={SCREEN.line} />
          <rect x="38" y={planTop(index) + 14} width="5" height="38" rx="2.5" fill={PLAN_COLORS[index]} />
          <text x="56" y={planTop(index) + 28} fontSize={TEXT.small} fill={ink[600]}>
            {plan.name}
          </text>
          <text x="56" y={planTop(index) + 50} fontSize={TEXT.small} fontWeight={BOLD} fill={ink[900]}>
            {plan.balance}
          </text>
          <rect x="204" y={planTop(index) + 34} width="80" height="24" rx="12" fill={brand[50]} />
          <text
            x="244"
            y={planTop(index) + 51}
            fontSize={TEXT.small}
            fontWeight={BOLD}
            fill={brand[700]}
            textAnchor="middle"
          >
            {plan.change}
          </text>
        </g>
      ))}

      <rect x="24" y="566" width="272" height="44" rx="14" fill={accent[400]} />
      <text x="160" y="594" fontSize={TEXT.small} fontWeight={BOLD} fill={brand[950]} textAnchor="middle">
        {preview.action}
      </text>
    </svg>
  );
}

/** "R$ 132.410,20"… → each plan's share of the total, as where its segment starts and how wide it is (0–1). */
function allocation(balances: readonly string[]): Array<{ start: number; width: number }> {
  const values = balances.map((balance) => Number(balance.replace(/[^\d,]/g, "").replace(",", ".")));
  const total = values.reduce((sum, value) => sum + value, 0);
  let start = 0;
  return values.map((value) => {
    const segment = { start, width: value / total };
    start += segment.width;
    return segment;
  });
}
