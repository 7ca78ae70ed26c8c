import { content } from "~/content";
import { Icon } from "./icons";

export function SiteHeader() {
  return (
    <header>
      <p className="bg-brand-950 px-4 py-2 text-center text-sm text-brand-100">
        <span className="mr-2 inline-block h-2 w-2 rounded-full bg-accent-400 align-middle" aria-hidden="true" />
        {content.banner}
      </p>
      <div className="bg-brand-900">
        <div className="mx-auto flex max-w-6xl items-center gap-2 px-4 py-4 sm:px-6">
          <Icon name="logo" className="h-8 w-8 text-accent-400" />
          <span className="text-xl font-bold tracking-tight text-white">{content.site.name}</span>
        </div>
      </div>
    </header>
  );
}
